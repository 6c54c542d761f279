#ifndef CSHAPELIB_SHIM_H
#define CSHAPELIB_SHIM_H
#include <shapefil.h>
#endif

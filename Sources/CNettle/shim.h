#ifndef CNETTLE_SHIM_H
#define CNETTLE_SHIM_H
#include <nettle/sha2.h>
#endif

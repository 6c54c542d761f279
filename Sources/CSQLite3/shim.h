#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H
#include <sqlite3.h>
#endif

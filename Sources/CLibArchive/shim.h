#ifndef VPSPACK_CLIBARCHIVE_SHIM_H
#define VPSPACK_CLIBARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif

#ifndef VPSPACK_CPNG_SHIM_H
#define VPSPACK_CPNG_SHIM_H
#include <png.h>
#endif

#ifndef VPSPACK_CJPEG_SHIM_H
#define VPSPACK_CJPEG_SHIM_H
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#include <jerror.h>
#endif

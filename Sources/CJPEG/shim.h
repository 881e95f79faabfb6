#ifndef VPSPACK_CJPEG_SHIM_H
#define VPSPACK_CJPEG_SHIM_H
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/*
 * libjpeg reports fatal errors by calling error_exit, which must not return.
 * Swift cannot use setjmp/longjmp, so every libjpeg call that may fail is made
 * from one of the small helpers below: each arms setjmp, calls libjpeg, and
 * returns 0 on success or a VPS_JPEG_* code with the library's message in
 * `message`.
 */

enum {
    VPS_JPEG_OK = 0,
    /* libjpeg raised a fatal error; see message. */
    VPS_JPEG_FAILED = 1,
    /* The data ended before the image did (libjpeg warning JWRN_JPEG_EOF). */
    VPS_JPEG_TRUNCATED = 2,
    /* Allocation of the helper state failed. */
    VPS_JPEG_NO_MEMORY = 3,
};

typedef struct vps_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int code;
    char message[JMSG_LENGTH_MAX];
} vps_jpeg_error;

static void vps_jpeg_error_exit(j_common_ptr cinfo) {
    vps_jpeg_error *err = (vps_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    err->code = VPS_JPEG_FAILED;
    longjmp(err->jump, 1);
}

/* Warnings are silent, except the end of data in the middle of the image,
 * which libjpeg would paper over with grey: that one is fatal here. */
static void vps_jpeg_emit_message(j_common_ptr cinfo, int level) {
    vps_jpeg_error *err = (vps_jpeg_error *)cinfo->err;
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
        (*cinfo->err->format_message)(cinfo, err->message);
        err->code = VPS_JPEG_TRUNCATED;
        longjmp(err->jump, 1);
    }
}

/* ---- decompression ---- */

typedef struct vps_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    vps_jpeg_error err;
    int created;
} vps_jpeg_decoder;

static inline vps_jpeg_decoder *vps_jpeg_decoder_new(void) {
    vps_jpeg_decoder *d = (vps_jpeg_decoder *)calloc(1, sizeof(vps_jpeg_decoder));
    return d;
}

static inline void vps_jpeg_decoder_free(vps_jpeg_decoder *d) {
    if (d == NULL) return;
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d);
}

/* Creates the decompressor over `data` and reads the header (jpeg_read_header). */
static inline int vps_jpeg_read_header(vps_jpeg_decoder *d, const unsigned char *data, unsigned long size) {
    d->cinfo.err = jpeg_std_error(&d->err.pub);
    d->err.pub.error_exit = vps_jpeg_error_exit;
    d->err.pub.emit_message = vps_jpeg_emit_message;
    d->err.code = VPS_JPEG_OK;
    d->err.message[0] = 0;
    if (setjmp(d->err.jump)) return d->err.code;
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    jpeg_mem_src(&d->cinfo, data, size);
    jpeg_read_header(&d->cinfo, TRUE);
    return VPS_JPEG_OK;
}

/* Asks for 8-bit grayscale output scaled by 1/denom (1, 2, 4 or 8) and starts
 * decompression (jpeg_start_decompress); output_width/height are then known. */
static inline int vps_jpeg_start_gray(vps_jpeg_decoder *d, unsigned int denom) {
    if (setjmp(d->err.jump)) return d->err.code;
    d->cinfo.out_color_space = JCS_GRAYSCALE;
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = denom;
    d->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&d->cinfo);
    return VPS_JPEG_OK;
}

/* Reads every scanline into `pixels` (rows `stride` bytes apart) and finishes. */
static inline int vps_jpeg_read_pixels(vps_jpeg_decoder *d, unsigned char *pixels, size_t stride) {
    if (setjmp(d->err.jump)) return d->err.code;
    while (d->cinfo.output_scanline < d->cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)d->cinfo.output_scanline * stride;
        jpeg_read_scanlines(&d->cinfo, &row, 1);
    }
    jpeg_finish_decompress(&d->cinfo);
    return VPS_JPEG_OK;
}

static inline int vps_jpeg_color_space(const vps_jpeg_decoder *d) { return (int)d->cinfo.jpeg_color_space; }
static inline int vps_jpeg_is_cmyk(const vps_jpeg_decoder *d) {
    return d->cinfo.jpeg_color_space == JCS_CMYK || d->cinfo.jpeg_color_space == JCS_YCCK;
}

/* ---- compression ---- */

/* Compresses `pixels` (rows `stride` bytes apart, `components` = 1 gray,
 * 3 RGB or 4 CMYK) at `quality` 1...100 into a malloc'd buffer returned in
 * `out`/`out_size` (free it with vps_jpeg_free_buffer). */
static inline int vps_jpeg_compress(const unsigned char *pixels, unsigned int width, unsigned int height,
                                    size_t stride, int components, int quality,
                                    unsigned char **out, unsigned long *out_size, char *message) {
    struct jpeg_compress_struct cinfo;
    vps_jpeg_error err;
    volatile int created = 0;
    *out = NULL;
    *out_size = 0;
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = vps_jpeg_error_exit;
    err.pub.emit_message = vps_jpeg_emit_message;
    err.code = VPS_JPEG_OK;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        if (created) jpeg_destroy_compress(&cinfo);
        if (*out) { free(*out); *out = NULL; *out_size = 0; }
        memcpy(message, err.message, JMSG_LENGTH_MAX);
        return err.code;
    }
    jpeg_create_compress(&cinfo);
    created = 1;
    jpeg_mem_dest(&cinfo, out, out_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : (components == 4 ? JCS_CMYK : JCS_RGB);
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return VPS_JPEG_OK;
}

static inline void vps_jpeg_free_buffer(unsigned char *buffer) { free(buffer); }

#endif

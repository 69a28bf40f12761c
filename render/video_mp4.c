// H.264 MP4 writer (see video_mp4.h). Pipeline per frame: swscale RGB24 -> yuv420p (BT.601
// matrix, limited range, tagged so players convert back the same way), libavcodec encodes,
// libavformat's mp4 muxer writes packets through a custom AVIOContext onto the temporary file
// of a tf_atomic_file. Writing through our own FILE* rather than avio_open(path) keeps
// libavformat from reading a ':' in a file name as a protocol, and lets tf_atomic_commit do
// the fsync + rename that publishes the file only when it is whole.
#include "video_mp4.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libswscale/swscale.h>

#include "error_message.h"
#include "file_io.h"

#define IO_BUFFER_BYTES 65536

struct tf_video_mp4 {
  tf_atomic_file file;        // the temporary file and its destination
  AVFormatContext* mux;       // mp4 muxer
  AVIOContext* io;            // the muxer's output: write/seek callbacks onto file.f
  AVCodecContext* enc;        // H.264 encoder
  AVStream* stream;           // the one video stream
  struct SwsContext* to_yuv;  // RGB24 -> yuv420p
  AVFrame* frame;             // yuv420p input to the encoder, reused
  AVPacket* packet;           // encoder output, reused
  int width, height, fps;
  int nframes;
  int failed;  // an earlier call failed: the file is not worth finishing
};

// libav's description of an AVERROR code
static const char* av_message(char* buf, size_t n, int code) {
  if (av_strerror(code, buf, n) < 0) snprintf(buf, n, "libav error %d", code);
  return buf;
}

// AVIOContext write callback: the muxer's bytes onto the temporary file
#if LIBAVFORMAT_VERSION_MAJOR >= 61
static int io_write(void* opaque, const uint8_t* buf, int size) {
#else
static int io_write(void* opaque, uint8_t* buf, int size) {
#endif
  FILE* f = opaque;
  if (fwrite(buf, 1, (size_t)size, f) != (size_t)size) return AVERROR(errno ? errno : EIO);
  return size;
}

// AVIOContext seek callback: the mp4 muxer seeks back to patch box sizes once it knows them
static int64_t io_seek(void* opaque, int64_t offset, int whence) {
  FILE* f = opaque;
  if (whence & AVSEEK_SIZE) {
    struct stat st;
    if (fflush(f) != 0 || fstat(fileno(f), &st) != 0) return AVERROR(errno);
    return (int64_t)st.st_size;
  }
  if (fseeko(f, (off_t)offset, whence & ~AVSEEK_FORCE) != 0) return AVERROR(errno);
  return (int64_t)ftello(f);
}

// frees every libav object (the temporary file is the caller's to commit or abort)
static void free_codec_state(tf_video_mp4* v) {
  sws_freeContext(v->to_yuv);
  v->to_yuv = NULL;
  av_frame_free(&v->frame);
  av_packet_free(&v->packet);
  avcodec_free_context(&v->enc);
  if (v->mux) avformat_free_context(v->mux);
  v->mux = NULL;
  if (v->io) av_freep(&v->io->buffer);
  avio_context_free(&v->io);
}

// tries to open one H.264 encoder with fixed, deterministic settings; 0, or an AVERROR
static int open_encoder(tf_video_mp4* v, const AVCodec* codec, int global_header) {
  AVCodecContext* c = avcodec_alloc_context3(codec);
  if (!c) return AVERROR(ENOMEM);
  c->width = v->width;
  c->height = v->height;
  c->pix_fmt = AV_PIX_FMT_YUV420P;
  c->time_base = (AVRational){1, v->fps};
  c->framerate = (AVRational){v->fps, 1};
  c->gop_size = 2 * v->fps;  // a key frame every 2 s: the report's players seek promptly
  // one thread: the same bytes on every machine and run, and the renderer owns the cores
  c->thread_count = 1;
  c->color_range = AVCOL_RANGE_MPEG;
  c->colorspace = AVCOL_SPC_SMPTE170M;  // BT.601, what swscale converts with by default
  c->flags |= AV_CODEC_FLAG_BITEXACT;
  // the caller reports failures in one line of its own; the encoder's banner (x264 prints its
  // settings at info level), warnings and errors drop to verbose, which stays off stderr
  c->log_level_offset = AV_LOG_VERBOSE - AV_LOG_ERROR;
  if (global_header) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* opts = NULL;
  if (strcmp(codec->name, "libx264") == 0) {
    // veryfast + crf 20: sharp edges and overlay text stay crisp at a few hundred kB per
    // minute, and encoding stays well above real time on one core
    av_dict_set(&opts, "preset", "veryfast", 0);
    av_dict_set(&opts, "crf", "20", 0);
  } else {
    c->bit_rate = (int64_t)v->width * v->height * v->fps / 8;  // ~0.125 bit per pixel
  }
  int rc = avcodec_open2(c, codec, &opts);
  av_dict_free(&opts);
  if (rc < 0) {
    avcodec_free_context(&c);
    return rc;
  }
  v->enc = c;
  return 0;
}

// 1 when the encoder takes yuv420p frames (libx264rgb, say, does not)
static int takes_yuv420p(const AVCodec* codec) {
  if (!codec->pix_fmts) return 1;
  for (const enum AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; p++) {
    if (*p == AV_PIX_FMT_YUV420P) return 1;
  }
  return 0;
}

// libx264 first, then any other H.264 encoder that opens; 0, or -1 with a message
static int choose_encoder(tf_video_mp4* v, int global_header, char* err, size_t errlen) {
  char msg[128];
  const AVCodec* x264 = avcodec_find_encoder_by_name("libx264");
  int rc = AVERROR_ENCODER_NOT_FOUND;
  if (x264) {
    rc = open_encoder(v, x264, global_header);
    if (rc == 0) return 0;
  }
  void* it = NULL;
  const AVCodec* codec;
  while ((codec = av_codec_iterate(&it)) != NULL) {
    if (codec == x264 || codec->id != AV_CODEC_ID_H264 || !av_codec_is_encoder(codec)) continue;
    if (!takes_yuv420p(codec)) continue;
    if (open_encoder(v, codec, global_header) == 0) return 0;
  }
  if (x264) {
    return tf_fail(err, errlen, "%s: the libx264 encoder did not open: %s", v->file.path,
                   av_message(msg, sizeof msg, rc));
  }
  return tf_fail(err, errlen,
                 "%s: libavcodec has no usable H.264 encoder (install Debian's libavcodec59, which "
                 "brings libx264)",
                 v->file.path);
}

// the mp4 muxer, its output on the temporary file, and the stream's header; 0 or -1
static int open_muxer(tf_video_mp4* v, char* err, size_t errlen) {
  char msg[128];
  int rc = avformat_alloc_output_context2(&v->mux, NULL, "mp4", NULL);
  if (rc < 0 || !v->mux) {
    return tf_fail(err, errlen, "%s: the mp4 muxer is missing from libavformat: %s", v->file.path,
                   av_message(msg, sizeof msg, rc));
  }
  if (choose_encoder(v, (v->mux->oformat->flags & AVFMT_GLOBALHEADER) != 0, err, errlen) != 0) {
    return -1;
  }
  v->stream = avformat_new_stream(v->mux, NULL);
  if (!v->stream) return tf_fail(err, errlen, "%s: out of memory", v->file.path);
  rc = avcodec_parameters_from_context(v->stream->codecpar, v->enc);
  if (rc < 0) {
    return tf_fail(err, errlen, "%s: %s", v->file.path, av_message(msg, sizeof msg, rc));
  }
  v->stream->time_base = v->enc->time_base;
  v->stream->avg_frame_rate = v->enc->framerate;
  v->stream->r_frame_rate = v->enc->framerate;

  uint8_t* buffer = av_malloc(IO_BUFFER_BYTES);
  if (buffer)
    v->io = avio_alloc_context(buffer, IO_BUFFER_BYTES, 1, v->file.f, NULL, io_write, io_seek);
  if (!v->io) {
    av_free(buffer);
    return tf_fail(err, errlen, "%s: out of memory", v->file.path);
  }
  v->mux->pb = v->io;
  // bit-exact: no library version string in the file, so bytes depend on the frames only
  v->mux->flags |= AVFMT_FLAG_CUSTOM_IO | AVFMT_FLAG_BITEXACT;
  rc = avformat_write_header(v->mux, NULL);
  if (rc < 0) {
    return tf_fail(err, errlen, "%s: cannot write the MP4 header: %s", v->file.path,
                   av_message(msg, sizeof msg, rc));
  }
  return 0;
}

// the reused yuv420p frame, packet and colour converter; 0 or -1
static int open_conversion(tf_video_mp4* v, char* err, size_t errlen) {
  v->frame = av_frame_alloc();
  v->packet = av_packet_alloc();
  if (!v->frame || !v->packet) return tf_fail(err, errlen, "%s: out of memory", v->file.path);
  v->frame->format = AV_PIX_FMT_YUV420P;
  v->frame->width = v->width;
  v->frame->height = v->height;
  v->frame->color_range = AVCOL_RANGE_MPEG;
  v->frame->colorspace = AVCOL_SPC_SMPTE170M;
  if (av_frame_get_buffer(v->frame, 0) < 0) {
    return tf_fail(err, errlen, "%s: out of memory", v->file.path);
  }
  // bit-exact + accurate rounding: the plain C path, so the bytes do not depend on which SIMD
  // instructions this CPU has
  v->to_yuv =
      sws_getContext(v->width, v->height, AV_PIX_FMT_RGB24, v->width, v->height, AV_PIX_FMT_YUV420P,
                     SWS_BILINEAR | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
  if (!v->to_yuv) {
    return tf_fail(err, errlen, "%s: swscale cannot convert RGB24 to yuv420p", v->file.path);
  }
  return 0;
}

int tf_video_mp4_open(tf_video_mp4** out, const char* path, int width, int height, int fps,
                      char* err, size_t errlen) {
  *out = NULL;
  if (!path || !path[0]) return tf_fail(err, errlen, "(empty path): a video needs a file name");
  if (width <= 0 || height <= 0 || width > TF_VIDEO_MP4_MAX_SIDE ||
      height > TF_VIDEO_MP4_MAX_SIDE) {
    return tf_fail(err, errlen, "%s: video size %dx%d is outside 2x2..%dx%d", path, width, height,
                   TF_VIDEO_MP4_MAX_SIDE, TF_VIDEO_MP4_MAX_SIDE);
  }
  if (width % 2 || height % 2) {
    return tf_fail(err, errlen, "%s: video size %dx%d must be even in both directions (yuv420p)",
                   path, width, height);
  }
  if (fps < 1 || fps > TF_VIDEO_MP4_MAX_FPS) {
    return tf_fail(err, errlen, "%s: frame rate %d is outside 1..%d", path, fps,
                   TF_VIDEO_MP4_MAX_FPS);
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    return tf_fail(err, errlen, "%s: is a folder, not a file name", path);
  }
  tf_video_mp4* v = calloc(1, sizeof *v);
  if (!v) return tf_fail(err, errlen, "%s: out of memory", path);
  v->width = width;
  v->height = height;
  v->fps = fps;
  if (tf_atomic_open(&v->file, path, err, errlen) != 0) {
    free(v);
    return -1;
  }
  if (open_muxer(v, err, errlen) != 0 || open_conversion(v, err, errlen) != 0) {
    tf_video_mp4_abort(v);
    return -1;
  }
  *out = v;
  return 0;
}

// moves every packet the encoder has ready into the muxer; 0, or -1 with a message
static int drain(tf_video_mp4* v, char* err, size_t errlen) {
  char msg[128];
  for (;;) {
    int rc = avcodec_receive_packet(v->enc, v->packet);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return 0;
    if (rc < 0) {
      return tf_fail(err, errlen, "%s: the encoder failed: %s", v->file.path,
                     av_message(msg, sizeof msg, rc));
    }
    // every frame lasts one tick of 1/fps: the last one's duration sets the file's length
    if (v->packet->duration == 0) v->packet->duration = 1;
    av_packet_rescale_ts(v->packet, v->enc->time_base, v->stream->time_base);
    v->packet->stream_index = v->stream->index;
    rc = av_interleaved_write_frame(v->mux, v->packet);  // takes the packet's data
    if (rc < 0) {
      return tf_fail(err, errlen, "%s: cannot write: %s", v->file.path,
                     av_message(msg, sizeof msg, rc));
    }
  }
}

int tf_video_mp4_add_frame(tf_video_mp4* v, const uint8_t* rgb, int stride, char* err,
                           size_t errlen) {
  char msg[128];
  if (v->failed) {
    return tf_fail(err, errlen, "%s: an earlier frame failed; the video cannot continue",
                   v->file.path);
  }
  if (!rgb || stride < 3 * v->width) {
    return tf_fail(err, errlen, "%s: frame rows of %d bytes are shorter than %d RGB pixels",
                   v->file.path, rgb ? stride : 0, v->width);
  }
  v->failed = 1;  // until this frame is through
  // the encoder may still hold the previous frame's buffer: get a fresh one if so
  int rc = av_frame_make_writable(v->frame);
  if (rc < 0) {
    return tf_fail(err, errlen, "%s: %s", v->file.path, av_message(msg, sizeof msg, rc));
  }
  const uint8_t* src[1] = {rgb};
  const int src_stride[1] = {stride};
  sws_scale(v->to_yuv, src, src_stride, 0, v->height, v->frame->data, v->frame->linesize);
  v->frame->pts = v->nframes;
  rc = avcodec_send_frame(v->enc, v->frame);
  if (rc < 0) {
    return tf_fail(err, errlen, "%s: the encoder refused frame %d: %s", v->file.path, v->nframes,
                   av_message(msg, sizeof msg, rc));
  }
  if (drain(v, err, errlen) != 0) return -1;
  v->nframes++;
  v->failed = 0;
  return 0;
}

int tf_video_mp4_close(tf_video_mp4* v, char* err, size_t errlen) {
  char msg[128];
  int status = 0;
  if (v->failed) {
    status = tf_fail(err, errlen, "%s: not written: an earlier frame failed", v->file.path);
  } else if (v->nframes == 0) {
    status = tf_fail(err, errlen, "%s: not written: the video has no frames", v->file.path);
  }
  if (status == 0) {
    int rc = avcodec_send_frame(v->enc, NULL);  // enter draining: delayed frames come out
    if (rc < 0) {
      status = tf_fail(err, errlen, "%s: cannot flush the encoder: %s", v->file.path,
                       av_message(msg, sizeof msg, rc));
    }
  }
  if (status == 0) status = drain(v, err, errlen);
  if (status == 0) {
    int rc = av_write_trailer(v->mux);
    if (rc >= 0) avio_flush(v->io);
    if (rc >= 0 && v->io->error < 0) rc = v->io->error;
    if (rc < 0) {
      status = tf_fail(err, errlen, "%s: cannot finish the MP4: %s", v->file.path,
                       av_message(msg, sizeof msg, rc));
    }
  }
  free_codec_state(v);
  if (status == 0) {
    status = tf_atomic_commit(&v->file, err, errlen);  // removes the temporary file on failure
  } else {
    tf_atomic_abort(&v->file);
  }
  free(v);
  return status;
}

void tf_video_mp4_abort(tf_video_mp4* v) {
  if (!v) return;
  free_codec_state(v);
  tf_atomic_abort(&v->file);
  free(v);
}

int tf_video_mp4_frames(const tf_video_mp4* v) { return v->nframes; }

const char* tf_video_mp4_encoder(const tf_video_mp4* v) { return v->enc->codec->name; }

// H.264 MP4 writer for rollout videos: RGB8 frames in, a yuv420p H.264 stream in an MP4 file
// out, at a constant frame rate (time base 1/fps, frame i shown at i/fps, so N frames last
// N/fps seconds).
//
// The file appears only when complete: frames go to a temporary file beside the destination
// (PATH.tmp.XXXXXX, which report listings ignore) that tf_video_mp4_close renames into place
// after the trailer is written and the data is on disk. A failed open, a failed frame or an
// abort leaves nothing; a crash leaves at most the temporary file, never a file at PATH.
//
// Deterministic: the same frames give the same bytes on every run and machine with the same
// libraries (one encoder thread, fixed settings, bit-exact colour conversion, no creation time
// nor muxer version in the file; x264 does record its own version and settings in the stream).
// Encoder: libx264 when libavcodec has it (Debian's does), else the first other H.264 encoder
// that opens (hardware ones usually do not on a headless machine). Settings: High profile,
// preset veryfast, crf 20, a key frame every 2 s, B-frames; BT.601 limited-range yuv420p.
// Videos are independent: several may be written at once from different threads.
#ifndef TF_VIDEO_MP4_H
#define TF_VIDEO_MP4_H

#include <stddef.h>
#include <stdint.h>

#define TF_VIDEO_MP4_MAX_SIDE 8192  // largest width or height accepted, pixels
#define TF_VIDEO_MP4_MAX_FPS 240    // highest frame rate accepted, frames per second

typedef struct tf_video_mp4 tf_video_mp4;

// starts a video at path (an existing file there is replaced on close). width and height in
// pixels, both even (yuv420p halves the colour planes), up to TF_VIDEO_MP4_MAX_SIDE; fps a
// whole number of frames per second, 1..TF_VIDEO_MP4_MAX_FPS (30 typical). Returns 0 with
// *out set, or -1 with "PATH: problem" in err and nothing created
int tf_video_mp4_open(tf_video_mp4** out, const char* path, int width, int height, int fps,
                      char* err, size_t errlen);

// encodes one frame: rgb holds height rows of width RGB pixels (3 bytes each, no alpha), row r
// starting at rgb + r * stride (stride >= 3 * width bytes). Returns 0, or -1 with a message.
// A frame refused for its arguments (NULL, short rows) leaves the video as it was; after the
// encoder or the disk fails, the video can only be closed (which then fails) or aborted
int tf_video_mp4_add_frame(tf_video_mp4* v, const uint8_t* rgb, int stride, char* err,
                           size_t errlen);

// flushes the encoder, writes the MP4 trailer, syncs and renames the file into place, and
// frees v. Returns 0, or -1 with a message and no file at the destination (v is freed either
// way). A video without frames is an error
int tf_video_mp4_close(tf_video_mp4* v, char* err, size_t errlen);

// gives up (an error elsewhere, Ctrl-C): removes the temporary file and frees v; NULL is a no-op
void tf_video_mp4_abort(tf_video_mp4* v);

// frames encoded so far
int tf_video_mp4_frames(const tf_video_mp4* v);

// the libavcodec encoder in use ("libx264"), for logs and benchmarks
const char* tf_video_mp4_encoder(const tf_video_mp4* v);

#endif  // TF_VIDEO_MP4_H

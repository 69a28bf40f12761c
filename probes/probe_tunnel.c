// Tunnel probe: the signed insertion depth of a part per control step (0 seated, < 0 inside
// solid material), flagging a part that ends through its seat and one that crosses more than
// a fly-through distance in one step to land below it. The path length travelled is always
// reported, because a part that never moved would otherwise pass every tunnelling check.
#include <math.h>

#include "probes.h"

void tf_tunnel_init(tf_tunnel_probe* p, double through_m, double flythrough_m) {
  p->through_m = through_m;
  p->flythrough_m = flythrough_m;
  p->nstep = 0;
  p->depth_first = p->depth_prev = p->depth_final = NAN;
  p->depth_min = INFINITY;
  p->pos_prev[0] = p->pos_prev[1] = p->pos_prev[2] = 0;
  p->travel = 0;
  p->flythrough = 0;
  p->jump_max = 0;
  p->below_m = TF_TUNNEL_BELOW_SEAT;
}

void tf_tunnel_observe(tf_tunnel_probe* p, double depth, const double pos[3]) {
  if (p->nstep == 0) {
    p->depth_first = depth;
  } else {
    double dx = pos[0] - p->pos_prev[0], dy = pos[1] - p->pos_prev[1];
    double dz = pos[2] - p->pos_prev[2];
    p->travel += sqrt(dx * dx + dy * dy + dz * dz);
    // a jump in either direction that ends inside material: the solver let the part skip
    // over the surface that should have stopped it. "Inside" means deeper than below_m: a
    // part that lands on its seat in one long step rests a rounding error or a contact's
    // penetration below it, which is a landing, not a fly-through
    double jump = fabs(depth - p->depth_prev);
    if (depth < -p->below_m) {
      p->jump_max = fmax(p->jump_max, jump);
      if (jump > p->flythrough_m) p->flythrough = 1;
    }
  }
  p->pos_prev[0] = pos[0], p->pos_prev[1] = pos[1], p->pos_prev[2] = pos[2];
  p->depth_prev = depth;
  p->depth_final = depth;
  p->depth_min = fmin(p->depth_min, depth);
  p->nstep++;
}

void tf_tunnel_finish(const tf_tunnel_probe* p, tf_metrics* out) {
  int seen = p->nstep > 0;
  tf_metrics_set_bool(out, "tunnel.through", seen && p->depth_final < -p->through_m);
  tf_metrics_set_bool(out, "tunnel.flythrough", seen && p->flythrough);
  tf_metrics_set(out, "tunnel.travel_m", seen ? p->travel : NAN);
  tf_metrics_set(out, "tunnel.depth_final_m", seen ? p->depth_final : NAN);
  tf_metrics_set(out, "tunnel.depth_min_m", seen ? p->depth_min : NAN);
}

// The Franka Emika Panda's published numbers, stated as facts (no code from anywhere):
//
// - Kinematics: Franka's documented modified-DH (Craig) table, flange 0.107 m along link 7's
//   z; joint position, velocity and torque limits from the same documentation (libfranka's
//   robot limits).
// - Link inertial parameters (mass, centre of mass in the link's DH frame, inertia tensor about
//   the com in link axes): C. Gaz, M. Cognetti, A. Oliva, P. Robuffo Giordano, A. De Luca,
//   "Dynamic Identification of the Franka Emika Panda Robot With Retrieval of Feasible
//   Parameters Using Penalty-Based Optimization", IEEE RA-L 4(4), 2019, as distributed in
//   franka_description and MuJoCo Menagerie. Link 1's com height is not identifiable (its
//   axis is vertical, so neither gravity nor the dynamics see it) and published copies differ
//   there (-0.04762 here, -0.175 in some); the robot's motion does not depend on it.
// - The base (link 0, fixed) and the Franka Hand: masses and inertias as in MuJoCo Menagerie's
//   Panda (hand 0.73 kg, fingers 0.015 kg); hand geometry (flange-to-TCP 0.1034 m, finger
//   travel 0.04 m each, -45 deg mounting) and grasp force (70 N continuous) from Franka's
//   datasheet.
#include "robot_panda.h"

#define HALF_PI 1.5707963267948966

static const tf_panda_params panda = {
    .dh_a = {0, 0, 0, 0.0825, -0.0825, 0, 0.088},
    .dh_d = {0.333, 0, 0.316, 0, 0.384, 0, 0},
    .dh_alpha = {0, -HALF_PI, HALF_PI, HALF_PI, -HALF_PI, HALF_PI, HALF_PI},
    .flange_d = 0.107,
    .q_min = {-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973},
    .q_max = {2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973},
    .qd_max = {2.1750, 2.1750, 2.1750, 2.1750, 2.6100, 2.6100, 2.6100},
    .tau_max = {87, 87, 87, 87, 12, 12, 12},
    .link_mass = {0.629769, 4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555, 0.735522},
    .link_com =
        {
            {-4.1018e-02, -1.4e-04, 4.9974e-02},
            {3.875e-03, 2.081e-03, -4.762e-02},
            {-3.141e-03, -2.872e-02, 3.495e-03},
            {2.7518e-02, 3.9252e-02, -6.6502e-02},
            {-5.317e-02, 1.04419e-01, 2.7454e-02},
            {-1.1953e-02, 4.1065e-02, -3.8437e-02},
            {6.0149e-02, -1.4117e-02, -1.0517e-02},
            {1.0517e-02, -4.252e-03, 6.1597e-02},
        },
    // ixx iyy izz ixy ixz iyz
    .link_inertia =
        {
            {3.15e-03, 3.88e-03, 4.285e-03, 8.2904e-07, 1.5e-04, 8.2299e-06},
            {7.0337e-01, 7.0661e-01, 9.1170e-03, -1.3900e-04, 6.7720e-03, 1.9169e-02},
            {7.9620e-03, 2.8110e-02, 2.5995e-02, -3.9250e-03, 1.0254e-02, 7.0400e-04},
            {3.7242e-02, 3.6155e-02, 1.0830e-02, -4.7610e-03, -1.1396e-02, -1.2805e-02},
            {2.5853e-02, 1.9552e-02, 2.8323e-02, 7.7960e-03, -1.3320e-03, 8.6410e-03},
            {3.5549e-02, 2.9474e-02, 8.6270e-03, -2.1170e-03, -4.0370e-03, 2.2900e-04},
            {1.9640e-03, 4.3540e-03, 5.4330e-03, 1.0900e-04, -1.1580e-03, 3.4100e-04},
            {1.2516e-02, 1.0027e-02, 4.8150e-03, -4.2800e-04, -1.1960e-03, -7.4100e-04},
        },
    .hand_mass = 0.73,
    .hand_com = {-0.01, 0, 0.03},
    .hand_inertia = {0.001, 0.0025, 0.0017, 0, 0, 0},
    .finger_mass = 0.015,
    .finger_inertia = {2.375e-6, 2.375e-6, 7.5e-7, 0, 0, 0},
    .hand_yaw = -0.78539816339744831,
    .tcp_offset = 0.1034,
    .finger_base = 0.0584,
    .finger_travel = 0.04,
    .finger_force = 70,
    .finger_speed = 0.05,
};

const tf_panda_params* tf_panda_params_get(void) { return &panda; }

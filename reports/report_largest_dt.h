// The report's answer to a dt sweep: per task and setting (mode, solver, substeps,
// relinearize), the largest control step at which every run passed, and the simulated
// seconds per wall second there, the figure a user picks settings by. Private to the reports
// layer (report.c is its user).
#ifndef TF_REPORT_LARGEST_DT_H
#define TF_REPORT_LARGEST_DT_H

#include <stdio.h>

#include "results_load.h"

// writes the <section id="largest-dt"> table when the results hold more than one dt; returns
// the number of settings in it (0: nothing written)
int tf_report_largest_dt_write(FILE* f, const tf_results* r);

#endif  // TF_REPORT_LARGEST_DT_H

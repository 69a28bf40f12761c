// The report's four plots, each drawn from the result columns it needs and replaced by a
// short "no data for this plot" note when no run has them. Private to the reports layer.
#ifndef TF_REPORT_PLOTS_H
#define TF_REPORT_PLOTS_H

#include <stdio.h>

#include "results_load.h"

// the plots' <svg> ids, in the order they appear
#define TF_REPORT_NPLOT 4
extern const char* const tf_report_plot_ids[TF_REPORT_NPLOT];

// writes the plot boxes; returns how many plots were drawn (the rest got the note)
int tf_report_plots_write(FILE* f, const tf_results* r);

#endif  // TF_REPORT_PLOTS_H

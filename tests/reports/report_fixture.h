// A synthetic sweep results directory for the report tests: a handful of runs over three
// solvers, two tasks, two timesteps, two clearances and three impact speeds, with null
// metrics, a diverged and a failed run, a tunnelled run, a blank line, one corrupt line
// (line 7) and a parameter and command holding HTML metacharacters. Header-only, shared by
// test_report.c and test_report_chromium.c.
#ifndef TF_TEST_REPORT_FIXTURE_H
#define TF_TEST_REPORT_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// the series each plot must draw from FIXTURE_RESULTS (see the rows below)
#define FIXTURE_SLIP_SERIES 3  // al, newton, pgs (the diverged run's slip is null)
#define FIXTURE_SLIP_POINTS 3
#define FIXTURE_TUNNEL_SERIES 3  // al 1/1000, al 1/500, pgs 1/500
#define FIXTURE_TUNNEL_POINTS 3
#define FIXTURE_OVERLAP_SERIES 3  // al peak, al mean, pgs peak
#define FIXTURE_OVERLAP_POINTS 5
// two tasks: a panel each (plot-throughput-gears, plot-throughput-peg)
#define FIXTURE_THROUGHPUT_GEARS_SERIES 3  // al, newton, pgs
#define FIXTURE_THROUGHPUT_GEARS_POINTS 4
#define FIXTURE_THROUGHPUT_PEG_SERIES 2  // al, pgs
#define FIXTURE_THROUGHPUT_PEG_POINTS 3
#define FIXTURE_RUNS 8
#define FIXTURE_CORRUPT_LINE 7

// the escaped form the page must show for the command of run p1, and the raw text it must not
#define FIXTURE_RAW_COMMAND "collider=\"sdf<&>\""
#define FIXTURE_ESCAPED_COMMAND "collider=&quot;sdf&lt;&amp;&gt;&quot;"

static const char fixture_results[] =
    "{\"run_id\":\"g1\",\"command\":\"tightfit run --task gears --solver al --dt 0.001\","
    "\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.001,\"substeps\":1,"
    "\"duration\":1,\"envs\":4,\"seed\":1,\"backlash_mm\":0.2,\"status\":\"ok\",\"success\":true,"
    "\"steps_per_s\":40000,\"realtime_factor\":40,\"gear_slip.max\":0.002,"
    "\"gear_slip.skipped_teeth\":0.1,\"throughput.env_steps_per_s\":50000}\n"
    "{\"run_id\":\"g2\",\"command\":\"tightfit run --task gears --solver newton --dt "
    "0.016666666666666666\",\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"newton\","
    "\"dt\":0.016666666666666666,\"substeps\":1,\"duration\":1,\"envs\":4,\"seed\":1,"
    "\"backlash_mm\":0.5,\"status\":\"ok\",\"success\":false,\"steps_per_s\":300000,"
    "\"gear_slip.max\":0.4,\"gear_slip.skipped_teeth\":1.5,"
    "\"throughput.env_steps_per_s\":310000}\n"
    "{\"run_id\":\"g3\",\"command\":\"tightfit run --task gears --solver pgs --dt 0.001\","
    "\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"pgs\",\"dt\":0.001,\"substeps\":4,"
    "\"duration\":1,\"envs\":4,\"seed\":2,\"backlash_mm\":0.2,\"status\":\"ok\",\"success\":true,"
    "\"gear_slip.max\":0,\"gear_slip.skipped_teeth\":0,\"throughput.env_steps_per_s\":90000}\n"
    "{\"run_id\":\"g4\",\"command\":\"tightfit run --task gears --solver newton --dt 0.001\","
    "\"task\":\"gears\",\"mode\":\"rig\",\"solver\":\"newton\",\"dt\":0.001,\"substeps\":1,"
    "\"duration\":1,\"envs\":4,\"seed\":1,\"backlash_mm\":0.2,\"status\":\"diverged\","
    "\"success\":false,\"gear_slip.max\":null,\"gear_slip.skipped_teeth\":null,"
    "\"throughput.env_steps_per_s\":70000}\n"
    "\n"
    "{\"run_id\":\"p1\",\"command\":\"tightfit run --task peg --solver al --set "
    "collider=\\\"sdf<&>\\\"\",\"task\":\"peg\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.001,"
    "\"substeps\":1,\"duration\":1,\"envs\":8,\"seed\":1,\"clearance_um\":20,"
    "\"impact_speed\":0.5,\"collider\":\"<b>sdf</b>&co\",\"status\":\"ok\",\"success\":true,"
    "\"steps_per_s\":120000,\"tunnel.through\":0,\"tunnel.flythrough\":0,"
    "\"overlap.peak_m\":3e-06,\"overlap.mean_m\":1e-06,\"peg.depth_m\":0.0199}\n"
    "{\"run_id\":\"p2\",\"task\":\"peg\",\"solver\":\"al\",\"dt\":0.00\n"
    "{\"run_id\":\"p3\",\"command\":\"tightfit run --task peg --solver pgs --dt 0.002\","
    "\"task\":\"peg\",\"mode\":\"rig\",\"solver\":\"pgs\",\"dt\":0.002,\"substeps\":1,"
    "\"duration\":1,\"envs\":8,\"seed\":1,\"clearance_um\":50,\"impact_speed\":2,"
    "\"collider\":\"sdf\",\"status\":\"ok\",\"success\":true,\"tunnel.through\":3,"
    "\"tunnel.flythrough\":1,\"overlap.peak_m\":8e-05,\"overlap.mean_m\":null,"
    "\"throughput.env_steps_per_s\":200000}\n"
    "{\"run_id\":\"p4\",\"command\":\"tightfit run --task peg --solver newton --dt 0.002\","
    "\"task\":\"peg\",\"mode\":\"rig\",\"solver\":\"newton\",\"dt\":0.002,\"substeps\":1,"
    "\"duration\":1,\"envs\":8,\"seed\":1,\"clearance_um\":20,\"impact_speed\":1,"
    "\"collider\":\"sdf\",\"status\":\"failed\",\"success\":false,\"tunnel.through\":null,"
    "\"tunnel.flythrough\":null,\"overlap.peak_m\":null,\"overlap.mean_m\":null}\n"
    "{\"run_id\":\"p5\",\"command\":\"tightfit run --task peg --solver al --dt 0.002\","
    "\"task\":\"peg\",\"mode\":\"rig\",\"solver\":\"al\",\"dt\":0.002,\"substeps\":1,"
    "\"duration\":1,\"envs\":8,\"seed\":1,\"clearance_um\":50,\"impact_speed\":2,"
    "\"collider\":\"sdf\",\"status\":\"ok\",\"success\":true,\"tunnel.through\":0,"
    "\"tunnel.flythrough\":0,\"overlap.peak_m\":5e-06,\"overlap.mean_m\":2e-06,"
    "\"throughput.env_steps_per_s\":150000}\n";

static const char fixture_config[] =
    "{\"tasks\":[\"gears\",\"peg\"],\"solvers\":[\"al\",\"newton\",\"pgs\"],"
    "\"dt\":[0.001,0.002],\"note\":\"</pre><script>alert(1)</script>\"}";

static const char fixture_machine[] =
    "{\"hostname\":\"bench-01\",\"cores\":16,\"version\":\"0.1.0\",\"compiler\":\"gcc 12.2\","
    "\"date\":\"2025-01-31T10:00:00Z\"}";

// writes text to dir/name; 0 on success
static inline int fixture_write(const char* dir, const char* name, const char* text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

// a fresh temporary directory holding the fixture sweep; 0 on success
static inline int fixture_make(char dir[64]) {
  snprintf(dir, 64, "/tmp/tightfit_report_XXXXXX");
  if (!mkdtemp(dir)) return -1;
  if (fixture_write(dir, "results.jsonl", fixture_results) != 0) return -1;
  if (fixture_write(dir, "results.csv", "run_id\ng1\n") != 0) return -1;
  if (fixture_write(dir, "config.json", fixture_config) != 0) return -1;
  return fixture_write(dir, "machine.json", fixture_machine);
}

// removes the directory and everything in it (links are removed, not followed)
static inline void fixture_remove(const char* dir) {
  DIR* d = opendir(dir);
  if (d) {
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char path[4096];
      if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fixture_remove(path);
      } else {
        unlink(path);
      }
    }
    closedir(d);
  }
  rmdir(dir);
}

// the whole file as a NUL-terminated heap string, or NULL
static inline char* fixture_read(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s) {
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
  }
  fclose(f);
  return s;
}

#endif  // TF_TEST_REPORT_FIXTURE_H

# tightfit build. `make` builds build/tightfit and the engine library; `make test` and
# `make demo` first install missing Debian packages (scripts/deps.sh), then build and run.
# The real work happens in a sub-make so that pkg-config runs after the packages exist.

CC ?= cc
BUILD ?= build
# libzip: the NPZ files of `--record` (reports/npz_write.c); libxml-2.0: MJCF models
# (assets/mjcf_load.c)
PKGS := libcjson libpng qhull_r libavcodec libavformat libavutil libswscale libzip \
  libxml-2.0
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

# determinism and portable binaries: no -march=native, no -ffast-math, no FMA contraction;
# -fno-math-errno changes no value (nothing reads errno after a math call): sqrt becomes one
# instruction without the errno branch, on every SDF query's chain
# trailing struct fields left out of an initializer are zero by the standard (schemas use it)
# -fPIC: every object also goes into libtightfit.so (the Python package's), so one compile
# serves both; -fno-semantic-interposition keeps calls within the library direct and
# inlinable, as they are in the executables (the same floating-point operations either way)
CFLAGS_BASE := -std=c11 -g -Wall -Wextra -Werror -Wno-missing-field-initializers \
  -ffp-contract=off -fno-math-errno -fPIC -fno-semantic-interposition -D_DEFAULT_SOURCE \
  $(PKG_CFLAGS)
OPT ?= -O2
SAN ?=
VALGRIND ?= 1
# TIMERS=0 compiles the per-stage timers out (engine/stage_timer.h); the step's own time stays
TIMERS ?= 1
CFLAGS := $(CFLAGS_BASE) $(OPT) $(SAN) -DTF_TIMERS=$(TIMERS)
# --as-needed: a binary loads only the libraries it calls (the test suites do not load libav)
LDLIBS := -Wl,--as-needed $(PKG_LIBS) -lm -lpthread
# MPI sweeps (cli/sweep_mpi.c, docs/cluster.md): when OpenMPI's mpicc is on PATH (Debian's
# libopenmpi-dev, which scripts/deps.sh installs), that one file is compiled with MPI's
# headers and the CLI links libmpi; without mpicc, or with MPI=0, it compiles to a stand-in
# that refuses a launch of several ranks, and everything else is the same
MPI ?= $(if $(shell command -v mpicc 2>/dev/null),1,0)
ifeq ($(MPI),1)
MPI_CFLAGS := -DTF_HAVE_MPI $(patsubst -I%,-isystem %,$(shell mpicc --showme:compile))
MPI_LIBS := $(shell mpicc --showme:link)
endif
DEPFLAGS = -MMD -MP

ENGINE_SRC := $(wildcard engine/*.c)
ASSETS_SRC := $(wildcard assets/*.c)
PROBES_SRC := $(wildcard probes/*.c)
VALIDATE_SRC := $(wildcard validate/*.c)
CONTROLLERS_SRC := $(wildcard controllers/*.c)
TASKS_SRC := $(wildcard tasks/*.c tasks/*/*.c)
REPORTS_SRC := $(wildcard reports/*.c)
RENDER_SRC := $(wildcard render/*.c)
CLI_SRC := $(wildcard cli/*.c)

# the layers and the headers each may include (docs/engine.md, "Layers"): a file sees its
# own layer's headers and those of the layers below it, nothing above, so an include across
# the rules fails to compile. Tests and benches see everything.
INC_engine := -Iengine
INC_assets := $(INC_engine) -Iassets
INC_probes := $(INC_engine) -Iprobes
INC_validate := $(INC_engine) -Ivalidate
INC_controllers := $(INC_assets) -Icontrollers
INC_tasks := $(INC_assets) -Iprobes -Ivalidate -Icontrollers -Itasks
INC_reports := $(INC_tasks) -Ireports
INC_render := $(INC_tasks) -Irender
INC_cli := $(INC_tasks) -Ireports -Irender -Icli
INC_tests := $(INC_cli) -Itests
INC_bench := $(INC_tests)
# the include flags of source file $(1) (a path below the tree's root), by its top folder
layer_inc = $(INC_$(firstword $(subst /, ,$(1))))
TEST_SRC := $(wildcard tests/*/test_*.c)
BENCH_SRC := $(wildcard bench/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
ENGINE_LIB := $(BUILD)/libtightfit_engine.a
ASSETS_LIB := $(BUILD)/libtightfit_assets.a
PROBES_LIB := $(BUILD)/libtightfit_probes.a
VALIDATE_LIB := $(BUILD)/libtightfit_validate.a
CONTROLLERS_LIB := $(BUILD)/libtightfit_controllers.a
TASKS_LIB := $(BUILD)/libtightfit_tasks.a
REPORTS_LIB := $(BUILD)/libtightfit_reports.a
RENDER_LIB := $(BUILD)/libtightfit_render.a
# link order: a layer before the layers it uses
LIBS := $(RENDER_LIB) $(REPORTS_LIB) $(TASKS_LIB) $(CONTROLLERS_LIB) $(VALIDATE_LIB) \
  $(PROBES_LIB) $(ASSETS_LIB) $(ENGINE_LIB)
CLI_BIN := $(BUILD)/tightfit
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

.SECONDARY:

.PHONY: all deps test check demo demo-run bench bench-run asan clean format format-check fuzz fuzz-run \
  python python-build

all: $(CLI_BIN) $(ENGINE_LIB)

deps:
	@bash scripts/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "cc $<"
	@$(CC) $(CFLAGS) $(call layer_inc,$<) $(DEPFLAGS) -c $< -o $@

# ---- profile-guided optimisation of the engine and the parts (PGO=0: off; on by default
# with GCC 11 or later). Their files are compiled instrumented into $(BUILD)/pgo, linked into
# a copy of the CLI, trained on short runs of every task (scripts/pgo_train.sh), and compiled
# again with the counts. GCC then lays out their branches, inlines and devirtualises the SDF
# call along the measured paths; the floating-point operations are the same (no fast-math,
# no contraction), so the results are the same bytes. Code the runs never reach stays
# optimised as usual (-fprofile-partial-training). Both compiles name the same auxiliary
# base (-dumpdir, -dumpbase: GCC keys a static function's profile to it), so the counts of
# the instrumented object fit the final one. About 9 % off a seated nut's mesh x SDF pair and
# 15 % off the gears' solve (README).
PGO ?= $(shell v=$$($(CC) -dumpfullversion 2>/dev/null); [ "$${v%%.*}" -ge 11 ] 2>/dev/null && \
  $(CC) -fprofile-partial-training -E -x c /dev/null >/dev/null 2>&1 && echo 1 || echo 0)
PGO_SRC := $(ENGINE_SRC) $(ASSETS_SRC)
ifeq ($(PGO),1)
# GCC names each profile after the absolute path of its object and bakes the data directory
# into the instrumented code, so the whole profile lives under a directory keyed by this
# tree's absolute path: a copied or moved checkout builds and trains its own (a minute)
PGO_KEY := $(shell printf '%s' '$(abspath .)' | cksum | cut -d' ' -f1)
PGO_DIR := $(BUILD)/pgo/$(PGO_KEY)
PGO_DATA := $(abspath $(PGO_DIR)/data)
PGO_OBJ := $(call obj,$(PGO_SRC))
PGO_GEN_OBJ := $(patsubst %.c,$(PGO_DIR)/obj/%.o,$(PGO_SRC))
PGO_TRAINER := $(PGO_DIR)/tightfit
PGO_STAMP := $(PGO_DIR)/trained
# the final object's auxiliary base, for both compiles of file $*
PGO_AUX = -dumpdir $(abspath $(BUILD)/obj/$(dir $*))/ -dumpbase $(notdir $*)

$(PGO_GEN_OBJ): $(PGO_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "cc $< (instrumented)"
	@$(CC) $(CFLAGS) $(call layer_inc,$<) $(DEPFLAGS) $(PGO_AUX) -fprofile-generate=$(PGO_DATA) \
	  -fprofile-update=single -c $< -o $@

# the CLI with the instrumented files and every other object as built. It depends on this
# Makefile, which lists the instrumented files (and .SECONDARY keeps make from remaking a
# missing object whose dependents are newer than its source)
$(PGO_TRAINER): Makefile $(PGO_GEN_OBJ) $(call obj,$(filter-out $(PGO_SRC),$(CLI_SRC) \
  $(RENDER_SRC) $(REPORTS_SRC) $(TASKS_SRC) $(CONTROLLERS_SRC) $(VALIDATE_SRC) $(PROBES_SRC) \
  $(ASSETS_SRC) $(ENGINE_SRC)))
	@echo "ld $@"
	@$(CC) $(CFLAGS) -fprofile-generate -o $@ $(filter %.o,$^) $(LDLIBS) $(MPI_LIBS)

$(PGO_STAMP): $(PGO_TRAINER) scripts/pgo_train.sh
	@bash scripts/pgo_train.sh $(PGO_TRAINER) $(PGO_DATA) $(words $(PGO_SRC))
	@touch $@

$(PGO_OBJ): $(BUILD)/obj/%.o: %.c $(PGO_STAMP)
	@mkdir -p $(dir $@)
	@echo "cc $< (profile-guided)"
	@$(CC) $(CFLAGS) $(call layer_inc,$<) $(DEPFLAGS) $(PGO_AUX) -fprofile-use=$(PGO_DATA) \
	  -fprofile-partial-training -c $< -o $@
endif

$(ENGINE_LIB): $(call obj,$(ENGINE_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(ASSETS_LIB): $(call obj,$(ASSETS_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(PROBES_LIB): $(call obj,$(PROBES_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(VALIDATE_LIB): $(call obj,$(VALIDATE_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(CONTROLLERS_LIB): $(call obj,$(CONTROLLERS_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(TASKS_LIB): $(call obj,$(TASKS_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(REPORTS_LIB): $(call obj,$(REPORTS_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(RENDER_LIB): $(call obj,$(RENDER_SRC))
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/cli/sweep_mpi.o: CFLAGS += $(MPI_CFLAGS)

$(CLI_BIN): $(call obj,$(CLI_SRC)) $(LIBS)
	@echo "ld $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(MPI_LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIBS)
	@mkdir -p $(dir $@)
	@echo "ld $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIBS)
	@mkdir -p $(dir $@)
	@echo "ld $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# ---- the Python package (python/tightfit, docs/train.md): ctypes loads $(BUILD)/libtightfit.so,
# the whole library but the CLI's main and the renderer, from the same objects as the CLI
# (position-independent, and with PGO the profile-optimised ones). -Bsymbolic keeps the
# library bound to its own symbols whatever else the interpreter loaded. run() and sweep() call
# the CLI, so `make python` builds it too. PYTHON: the interpreter Debian's numpy and pytest
# install for (another python3 on PATH may not see them).
PYTHON ?= /usr/bin/python3
PY_LIB := $(BUILD)/libtightfit.so
PY_SRC := $(ENGINE_SRC) $(ASSETS_SRC) $(PROBES_SRC) $(VALIDATE_SRC) $(CONTROLLERS_SRC) \
  $(TASKS_SRC) $(REPORTS_SRC)
PY_OBJ := $(call obj,$(PY_SRC))

$(PY_LIB): $(PY_OBJ)
	@echo "ld $@"
	@$(CC) $(CFLAGS) -shared -Wl,-Bsymbolic -Wl,--no-undefined -o $@ $^ $(LDLIBS)

# `make python` installs what is missing first, as `make test` does
python: deps
	@$(MAKE) --no-print-directory python-build

python-build: $(PY_LIB) $(CLI_BIN)

# ---- the two commands
test: deps
	@$(MAKE) --no-print-directory check

# the golden hashes once more from a build without profile-guided optimisation, in its own
# tree: the profile may change the code's layout, never a result
GOLDEN_NOPGO :=
ifeq ($(PGO),1)
GOLDEN_NOPGO := $(BUILD)/nopgo/tests/tasks/test_golden_hash
.PHONY: $(GOLDEN_NOPGO)
$(GOLDEN_NOPGO):
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/nopgo PGO=0 $@
endif

# with PGO in the default tree, a copy of the checkout is built too (scripts/test_moved_tree.sh)
MOVED_TREE :=
ifeq ($(PGO)$(BUILD),1build)
MOVED_TREE := $(abspath .)
endif
# the pytest suite (python/tests) runs after the C suites, against $(PY_LIB); not under the
# sanitizers (the interpreter would need their runtime preloaded)
PY_CHECK_LIB := $(if $(SAN),,$(PY_LIB))
# under the sanitizers one suite cannot run: test_vec_env_alloc counts allocations by putting
# its own malloc in front of glibc's, and the sanitizers' runtime owns malloc (it aborts at
# start); `make test` runs it, and `make asan` says it left it out
SAN_EXCLUDED := $(if $(SAN),$(BUILD)/tests/tasks/test_vec_env_alloc)
comma := ,
CHECK_BINS := $(filter-out $(SAN_EXCLUDED),$(TEST_BINS))
# the cluster tests (docs/cluster.md) run the CLI under mpirun and a Slurm of their own; not
# under the sanitizers (OpenMPI's and Slurm's own allocations are not ours to check)
CLUSTER_TESTS := $(if $(SAN),,scripts/test_mpi.sh scripts/test_slurm.sh)
check: $(CLI_BIN) $(CHECK_BINS) $(GOLDEN_NOPGO) $(PY_CHECK_LIB)
	@$(if $(SAN_EXCLUDED),echo "not run under the sanitizers: $(SAN_EXCLUDED) (it replaces malloc)$(comma) the pytest suite (the interpreter would need their runtime preloaded)$(comma) and the MPI and Slurm tests";)
	@TIGHTFIT_BIN=$(CLI_BIN) VALGRIND=$(VALGRIND) MOVED_TREE=$(MOVED_TREE) \
	  PYTHON=$(PYTHON) PYTEST_LIB=$(PY_CHECK_LIB) \
	  bash scripts/run_tests.sh $(CHECK_BINS) $(GOLDEN_NOPGO) $(CLUSTER_TESTS)

demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: $(CLI_BIN)
	@bash scripts/demo.sh $(CLI_BIN) out/demo

bench: deps
	@$(MAKE) --no-print-directory bench-run

# each benchmark's JSON goes to stdout and to bench/results/<bench>.json (written whole or
# not at all); `make measured` turns the task runs' into docs/measured.md's speed table
# (and bench/bench_python.py: the Python package's overhead per batched step, the same way)
bench-run: $(BENCH_BINS) $(PY_LIB) $(CLI_BIN)
	@mkdir -p bench/results
	@for b in $(BENCH_BINS) bench/bench_python.py bench/bench_mpi.sh; do \
	  out=bench/results/$$(basename $$(basename $$b .py) .sh).json; \
	  case $$b in *.py) run="env TIGHTFIT_LIB=$(PY_LIB) $(PYTHON) $$b" ;; \
	    *.sh) run="env TIGHTFIT_BIN=$(abspath $(CLI_BIN)) bash $$b" ;; *) run=$$b ;; esac; \
	  if $$run > $$out.tmp; then cat $$out.tmp; mv $$out.tmp $$out; \
	  else cat $$out.tmp; rm -f $$out.tmp; exit 1; fi; \
	done

.PHONY: measured
measured:
	@python3 scripts/measured_tables.py bench/results docs/measured.md

# the benchmark's task runs, REF's CLI (built in a temporary worktree) against this tree's,
# alternately (scripts/bench_compare.sh): make bench-compare REF=<commit> [ROUNDS=5] [CASES=re]
.PHONY: bench-compare
bench-compare: deps
	@BUILD=$(BUILD) bash scripts/bench_compare.sh "$(REF)"

# all tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build tree
asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan OPT=-O1 PGO=0 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  VALGRIND=0 check

# ---- fuzzing the mesh readers (libFuzzer; needs clang and its runtime: Debian clang,
# libclang-rt-14-dev). New inputs go to $(BUILD)/fuzz/corpus; fuzz/corpus holds the seeds.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_BIN := $(BUILD)/fuzz/fuzz_mesh_io

$(FUZZ_BIN): fuzz/fuzz_mesh_io.c assets/mesh_io.c assets/file_io.c assets/mesh_io.h assets/file_io.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -g -O1 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iassets \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  fuzz/fuzz_mesh_io.c assets/mesh_io.c assets/file_io.c -o $@ -lm

# the MJCF loader builds models, so its fuzzer takes the engine and the assets whole (meshes
# are never read: the fuzzer's model folder does not exist)
FUZZ_MJCF_BIN := $(BUILD)/fuzz/fuzz_mjcf

$(FUZZ_MJCF_BIN): fuzz/fuzz_mjcf.c $(ENGINE_SRC) $(ASSETS_SRC) $(wildcard engine/*.h assets/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -g -O1 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	  -D_DEFAULT_SOURCE $(PKG_CFLAGS) -Iengine -Iassets \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  fuzz/fuzz_mjcf.c $(ENGINE_SRC) $(ASSETS_SRC) -o $@ $(LDLIBS)

# the URDF loader the same way, its arms built with the hand as robot mode builds them
FUZZ_URDF_BIN := $(BUILD)/fuzz/fuzz_urdf

$(FUZZ_URDF_BIN): fuzz/fuzz_urdf.c $(ENGINE_SRC) $(ASSETS_SRC) $(wildcard engine/*.h assets/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -g -O1 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	  -D_DEFAULT_SOURCE $(PKG_CFLAGS) -Iengine -Iassets \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  fuzz/fuzz_urdf.c $(ENGINE_SRC) $(ASSETS_SRC) -o $@ $(LDLIBS)

fuzz:
	@bash scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_BIN) $(FUZZ_MJCF_BIN) $(FUZZ_URDF_BIN)
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus_mjcf $(BUILD)/fuzz/corpus_urdf
	$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=65536 -dict=fuzz/mesh.dict \
	  -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus fuzz/corpus
	$(FUZZ_MJCF_BIN) -max_total_time=$(FUZZ_TIME) -max_len=65536 -dict=fuzz/mjcf.dict \
	  -artifact_prefix=$(BUILD)/fuzz/mjcf- $(BUILD)/fuzz/corpus_mjcf fuzz/corpus_mjcf
	$(FUZZ_URDF_BIN) -max_total_time=$(FUZZ_TIME) -max_len=65536 -dict=fuzz/urdf.dict \
	  -artifact_prefix=$(BUILD)/fuzz/urdf- $(BUILD)/fuzz/corpus_urdf fuzz/corpus_urdf

clean:
	rm -rf build out/demo

FORMAT_SRC = $(ENGINE_SRC) $(ASSETS_SRC) $(PROBES_SRC) $(VALIDATE_SRC) $(CONTROLLERS_SRC) \
  $(TASKS_SRC) $(REPORTS_SRC) $(RENDER_SRC) $(CLI_SRC) $(TEST_SRC) $(BENCH_SRC) $(wildcard */*.h */*/*.h)
format:
	clang-format -i $(FORMAT_SRC)
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRC)

-include $(shell find $(BUILD)/obj $(BUILD)/pgo -name '*.d' 2>/dev/null)

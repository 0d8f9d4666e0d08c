# thrashtop: watch the Linux VM under load.
# `make` builds ./thrashtop; `make run` and `make check` first install what
# is missing (see `deps`).

CC      ?= gcc
PKGS    := ncursesw libproc2 sqlite3 libnl-genl-3.0 libtracefs libtraceevent libarchive liblzma \
	   libpcp libpcp_import libzstd
APT_PKGS := pkg-config libncurses-dev libproc2-dev libsqlite3-dev libnl-genl-3-dev \
	    libtracefs-dev libtraceevent-dev libarchive-dev liblzma-dev libpcp3-dev \
	    libpcp-import1-dev libzstd-dev tmux time
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
OPT     ?= -O2 -g
CFLAGS  ?= $(OPT)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(CSTD) $(WARN) -pthread -Iinclude $(PKG_CFLAGS) $(CFLAGS)
LDLIBS  = $(PKG_LIBS) -lm -pthread

SRC     := $(wildcard src/*.c)
LIBSRC  := $(filter-out src/main.c,$(SRC))
TSRC    := $(wildcard tests/unit/*.c)

OBJ      = $(SRC:src/%.c=build/rel/%.o)
SAN_OBJ  = $(LIBSRC:src/%.c=build/san/%.o)
SAN_MAIN = build/san/main.o
TEST_OBJ = $(TSRC:tests/unit/%.c=build/san/test_%.o)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# Each object lists the headers it includes in its .d file, so a header
# edit rebuilds only what includes it.
DEPFLAGS := -MMD -MP

.PHONY: all deps check-deps pcp-tools guest-kernels install uninstall run check bench clean unit other-cc fuzz fuzz-build

all: thrashtop

thrashtop: $(OBJ)
	@echo "  LD      $@"
	@$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

build/rel/%.o: src/%.c | build/rel
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

build/san/%.o: src/%.c | build/san
	@echo "  CC san  $<"
	@$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(DEPFLAGS) -c -o $@ $<

build/san/test_%.o: tests/unit/%.c | build/san
	@echo "  CC san  $<"
	@$(CC) $(ALL_CFLAGS) $(SANFLAGS) $(DEPFLAGS) -Itests/unit -c -o $@ $<

# The instrumented binary that every test drives.
build/thrashtop-san: $(SAN_OBJ) $(SAN_MAIN)
	@echo "  LD san  $@"
	@$(CC) $(ALL_CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

build/unit: $(SAN_OBJ) $(TEST_OBJ)
	@echo "  LD san  $@"
	@$(CC) $(ALL_CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

build/rel build/san:
	mkdir -p $@

# Installs only what pkg-config or PATH says is missing.
deps:
	@missing=""; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing=1; done; \
	for c in tmux /usr/bin/time; do command -v $$c >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  echo "deps: installing $(APT_PKGS)"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PKGS) >/dev/null || \
	  { echo "deps: apt-get failed; install $(APT_PKGS) by hand" >&2; exit 1; }; \
	fi

run: deps
	$(MAKE) --no-print-directory thrashtop
	./thrashtop $(ARGS)

unit: build/unit
	./build/unit

# Tools only the tests use, as command:package.
CHECK_TOOLS := man:man-db xmllint:libxml2-utils rsvg-convert:librsvg2-bin gnuplot:gnuplot-nox \
	       strace:strace asciinema:asciinema qemu-system-x86_64:qemu-system-x86 \
	       busybox:busybox-static sshd:openssh-server zstd:zstd
check-deps: pcp-tools
	@missing=""; for t in $(CHECK_TOOLS); do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  echo "deps: installing$$missing for the tests"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || \
	  { echo "deps: apt-get failed; install$$missing by hand" >&2; exit 1; }; \
	fi

# PCP's tools, for the tests of its archives (`pcp`). Its postinst enables
# pmcd, pmlogger, pmie and pmproxy at boot and runs systemctl to start them
# whenever one is on dpkg's PATH, which fails where systemd is not PID 1
# and leaves dpkg half-configured. The tests need the tools, no daemon: it
# goes in with a systemctl and a deb-systemd-helper that do nothing first
# on that PATH, for that one command, so that nothing is started or enabled.
pcp-tools:
	@command -v pmlogcheck >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  echo "deps: installing pcp for the tests (no service started or enabled)"; \
	  shim=$$(mktemp -d) || exit 1; \
	  printf '#!/bin/sh\nexit 0\n' >"$$shim/systemctl"; \
	  cp "$$shim/systemctl" "$$shim/deb-systemd-helper"; \
	  chmod 755 "$$shim/systemctl" "$$shim/deb-systemd-helper"; \
	  eval "$$(apt-config shell dpath DPkg::Path)"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    -o DPkg::Path="$$shim:$${dpath:-$$PATH}" pcp >/dev/null; \
	  rc=$$?; rm -rf "$$shim"; \
	  [ $$rc -eq 0 ] || { echo "deps: apt-get failed; install pcp by hand" \
	    "(docs/dependencies.md says how)" >&2; exit 1; }; }

# Every core: the builds are most of the time to a first test. The ones
# no script needs (the other compiler's, the fuzz targets) are made by
# tests/run.sh beside the first scripts.
NPROC := $(shell nproc 2>/dev/null || echo 1)

# The kernels the guest tests boot (tests/e2e/8x), fetched into the kernel
# cache once (`thrashtop kernel fetch`: apt-get download, unpacked, nothing
# installed); a machine that cannot fetch them skips those tests, saying so.
GUEST_KERNELS := 'linux-image-6.1.*-amd64' 'linux-image-6.12.*+deb12-amd64'
guest-kernels: thrashtop
	@./thrashtop kernel fetch $(GUEST_KERNELS) || \
	  echo "deps: no guest kernels: the guest tests will skip" >&2

check: deps check-deps
	$(MAKE) --no-print-directory -j$(NPROC) thrashtop build/thrashtop-san build/unit
	$(MAKE) --no-print-directory guest-kernels
	tests/run.sh

# The code must build warning-free under gcc and clang alike; this compiles
# every file with the compiler the build did not use.
OTHER_CC = $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),gcc,clang)
other-cc:
	@if command -v $(OTHER_CC) >/dev/null; then \
	  printf '%s\n' $(SRC) $(TSRC) $(FUZZ_SRC) | xargs -P $(NPROC) -n 8 \
	    $(OTHER_CC) $(CSTD) $(WARN) -Iinclude -Itests/unit $(PKG_CFLAGS) -O2 -fsyntax-only && \
	  echo "other-cc: $(OTHER_CC) builds every file warning-free"; \
	fi

# libFuzzer targets, one per parser of outside input (tests/fuzz/fuzz_*.c),
# built with clang. `make fuzz` runs each for FUZZ_SECONDS from its seed
# corpus and what earlier runs found (build/fuzz/corpus); `make check` tries
# the same 15000 inputs from the seeds alone each run (tests/fuzz/run.sh -s).
FUZZ_CC      := clang
FUZZ_SECONDS ?= 600
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_OBJ      = $(LIBSRC:src/%.c=build/fuzz/%.o)
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined

build/fuzz/%.o: src/%.c | build/fuzz
	@echo "  CC fuzz $<"
	@$(FUZZ_CC) $(CSTD) $(WARN) -Iinclude $(PKG_CFLAGS) $(FUZZ_FLAGS) \
	  -fsanitize=fuzzer-no-link,address,undefined $(DEPFLAGS) -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ) | build/fuzz
	@echo "  LD fuzz $@"
	@$(FUZZ_CC) $(CSTD) $(WARN) -Iinclude $(PKG_CFLAGS) $(FUZZ_FLAGS) \
	  -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJ) $(LDLIBS)

.SECONDARY: $(FUZZ_OBJ)

build/fuzz:
	mkdir -p $@

fuzz-build:
	@if command -v $(FUZZ_CC) >/dev/null; then $(MAKE) --no-print-directory $(FUZZ_BIN); \
	else echo "fuzz: no $(FUZZ_CC), fuzz targets not built"; fi

fuzz: deps fuzz-build
	tests/fuzz/run.sh $(FUZZ_SECONDS)

BENCH_PKGS := htop btop sqlite3 strace
bench: deps
	@missing=""; for c in $(BENCH_PKGS); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then echo "bench: installing$$missing to compare with"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; fi
	$(MAKE) --no-print-directory thrashtop build/sample_cost build/firstframe build/draw_cost \
	  build/order_cost
	bench/run.sh $(SECTIONS)

build/sample_cost: bench/sample_cost.c $(filter-out build/rel/main.o,$(OBJ)) $(wildcard include/*.h)
	@echo "  LD      $@"
	@$(CC) $(ALL_CFLAGS) -o $@ bench/sample_cost.c $(filter-out build/rel/main.o,$(OBJ)) $(LDLIBS)

build/draw_cost: bench/draw_cost.c $(filter-out build/rel/main.o,$(OBJ)) $(wildcard include/*.h)
	@echo "  LD      $@"
	@$(CC) $(ALL_CFLAGS) -o $@ bench/draw_cost.c $(filter-out build/rel/main.o,$(OBJ)) $(LDLIBS)

build/order_cost: bench/order_cost.c build/rel/reclaim.o build/rel/fmt.o include/reclaim.h
	@echo "  LD      $@"
	@$(CC) $(ALL_CFLAGS) -o $@ bench/order_cost.c build/rel/reclaim.o build/rel/fmt.o $(LDLIBS)

build/firstframe: bench/firstframe.c | build/rel
	@echo "  LD      $@"
	@$(CC) $(ALL_CFLAGS) -o $@ $< -lutil

# `make install PREFIX=/usr DESTDIR=/tmp/pkg` for a package.
PREFIX  ?= /usr/local
BINDIR   = $(DESTDIR)$(PREFIX)/bin
MANDIR   = $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR  = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
DOCDIR   = $(DESTDIR)$(PREFIX)/share/doc/thrashtop

install: thrashtop
	install -d $(BINDIR) $(MANDIR) $(COMPDIR) $(DOCDIR)
	install -m 755 thrashtop $(BINDIR)/thrashtop
	install -m 644 thrashtop.1 $(MANDIR)/thrashtop.1
	install -m 644 thrashtop.bash $(COMPDIR)/thrashtop
	install -m 644 LICENSE $(DOCDIR)/LICENSE

uninstall:
	rm -f $(BINDIR)/thrashtop $(MANDIR)/thrashtop.1 $(COMPDIR)/thrashtop $(DOCDIR)/LICENSE
	-rmdir $(DOCDIR) 2>/dev/null

clean:
	rm -rf build thrashtop

-include $(wildcard build/rel/*.d build/san/*.d build/fuzz/*.d)

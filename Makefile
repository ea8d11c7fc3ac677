# gfxcuda — see README.md.
#   make demo      build the tool, list the GPUs and run the demo (render → CUDA tensor; pictures in out/)
#   make test      the whole CPU suite (Vulkan tests run for real on lavapipe)
#   make gpu-test  bundle every test binary for a GPU machine without Go (.gpu/)
#   make lib       the C library: build/lib/libgfxcuda.so and gfxcuda.h
#   make python    the Python package's wheel (build/wheel/, as `pip wheel .` builds it), installable offline

GO      ?= go
PKGS    := ./...
BIN     := bin/gfxcuda
GPU_DIR := .gpu
DEBS    ?= ../shared/gpu/debs

export PATH := $(PATH):/usr/local/go/bin

PYTHON  ?= /usr/bin/python3
LIB_DIR := build/lib

.PHONY: all deps deps-test build demo test vet fmt-check tidy-check generate-check gpu-test gpu-bundle gpu-pyopengl gpu-mujoco clean lib python pytest windows windows-test

all: build

deps:
	@scripts/deps.sh

# deps.sh against stub apt-get/dpkg: installs nothing, a few seconds.
deps-test:
	@bash scripts/deps_test.sh

# PROGRESS runs a command and prints a line whenever it has been quiet for
# 20 s; with `go test -json`, each package as it finishes, a failing
# package's output as plain go test prints it, and the failed packages at
# the end (internal/testprogress).
# It is built first, quickly (the standard library alone: about 20 s on a
# fresh machine, which the gfxcuda build then needs anyway).
PROGRESS := bin/testprogress
$(PROGRESS): internal/testprogress/main.go
	@echo "building $@ (it reports progress while the long builds run)…"
	@$(GO) build -o $@ ./internal/testprogress

# The first build compiles the cgo packages (Vulkan, CUDA, shaderc, EGL):
# 2-3 minutes, never silent for more than 20 s.
build: deps $(PROGRESS)
	@echo "building $(BIN) (the first build takes 2-3 minutes; later ones seconds)…"
	@$(PROGRESS) -- $(GO) build -o $(BIN) ./cmd/gfxcuda

demo: build
	@echo "== gfxcuda devices"
	@$(BIN) devices
	@echo
	@echo "== gfxcuda demo   (render → CUDA tensor; on a machine without CUDA, the Vulkan half; writes out/demo.png and out/demo.gif)"
	@$(BIN) demo --out out
	@echo
	@echo "Next: '$(BIN) doctor' checks this machine for Vulkan↔CUDA interop and says how to fix what is missing."

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# go.mod and go.sum as go mod tidy leaves them (it prints what it would
# change, and changes nothing).
tidy-check:
	$(GO) mod tidy -diff

# Generated files as go generate ./... leaves them: the C ABI's Python
# declarations (python/gfxcuda/_abi.py, from gfxcuda.h), the tensor
# converter's SPIR-V, the format table, the test pattern. The check compares
# the tree's state (git diff and untracked files) before and after, so it
# works in a tree with changes of its own; outside a git checkout it only
# says so.
generate-check: deps
	@if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		echo "generate-check: not a git checkout: skipped"; exit 0; fi; \
	b=$$(mktemp) && a=$$(mktemp) || exit 1; \
	state() { for f in $$(git ls-files -m -o --exclude-standard); do [ -f "$$f" ] && sha256sum "$$f"; done; }; \
	state >"$$b"; \
	$(GO) generate ./... || { rm -f "$$b" "$$a"; exit 1; }; \
	state >"$$a"; \
	if ! cmp -s "$$b" "$$a"; then \
		echo "go generate ./... changed these files; commit what it generates:"; \
		diff "$$b" "$$a" | sed -n 's/^[<>] [0-9a-f]*  /  /p' | sort -u; rm -f "$$b" "$$a"; exit 1; fi; \
	rm -f "$$b" "$$a"

vet: deps $(PROGRESS)
	$(PROGRESS) -- $(GO) vet $(PKGS)

# Vulkan tests must run (GFXCUDA_REQUIRE_VULKAN): a machine without Vulkan
# fails here instead of silently skipping. Validation errors fail tests.
# The fuzz budgets are execution counts, not durations: Go 1.26's fuzz
# coordinator can fail a duration-bounded run at its deadline with "context
# deadline exceeded" and no crasher (go.dev/issue/75804, fixed in Go 1.27);
# a count has no deadline to race. 200,000 runs is about 10 s here;
# FuzzTranslate (the WGSL parser, checker and GLSL writer) runs 50,000.
test: deps fmt-check tidy-check generate-check vet deps-test $(PROGRESS)
	GFXCUDA_REQUIRE_VULKAN=1 GFXCUDA_REQUIRE_GL=1 GFXCUDA_VALIDATION=1 $(PROGRESS) -- $(GO) test -json -race -count=1 -timeout 20m $(PKGS)
	$(PROGRESS) -- $(GO) test -run '^$$' -fuzz '^FuzzParseToken$$' -fuzztime 200000x ./internal/sharenet/ && $(PROGRESS) -- $(GO) test -run '^$$' -fuzz '^FuzzReadRequest$$' -fuzztime 200000x ./internal/sharenet/
	$(PROGRESS) -- $(GO) test -run '^$$' -fuzz '^FuzzTranslate$$' -fuzztime 50000x ./shader/wgsl/
	$(MAKE) pytest
	$(MAKE) windows-test

# The C library (c-shared) with its hand-written, documented header; the
# header cgo generates is not shipped. It is linked as the wheel's is, for
# manylinux (docs/wheels.md): manylinux.py --link-flags prepares
# build/manylinux-link (static libstdc++, the glibc 2.17 versions of what
# glibc 2.34 moved into libc) and prints the CGO_LDFLAGS, added after yours;
# then it prints the tag the library allows, and fails on what the policy
# forbids.
MANYLINUX := python/build_backend/manylinux.py
lib: deps $(PROGRESS)
	@mkdir -p $(LIB_DIR) && $(PYTHON) $(MANYLINUX) --link-flags build/manylinux-link > $(LIB_DIR)/cgo-ldflags
	CGO_LDFLAGS="$${CGO_LDFLAGS:+$$CGO_LDFLAGS }$$(cat $(LIB_DIR)/cgo-ldflags)" $(PROGRESS) -- $(GO) build -buildmode=c-shared -trimpath -ldflags='-s -w' -o $(LIB_DIR)/libgfxcuda.so ./cmd/libgfxcuda
	@printf 'libgfxcuda.so: ' && $(PYTHON) $(MANYLINUX) $(LIB_DIR)/libgfxcuda.so
	@rm -f $(LIB_DIR)/libgfxcuda.h
	@cp cmd/libgfxcuda/gfxcuda.h $(LIB_DIR)/gfxcuda.h
	@cp $(LIB_DIR)/libgfxcuda.so python/gfxcuda/libgfxcuda.so

# The wheel, through the in-tree PEP 517 backend (what `pip wheel .` runs:
# Go builds the library, manylinux.py tags the wheel), installable offline:
# pip install --no-index build/wheel/gfxcuda-*.whl
python: deps
	@rm -f build/wheel/gfxcuda-*.whl
	$(PYTHON) python/build_backend/gfxcuda_build.py wheel build/wheel

# The Python tests on Debian's python3 (numpy, pytest): on lavapipe here,
# with CUDA, torch, CuPy and Numba on the GPU machine.
pytest: lib
	GFXCUDA_REQUIRE_VULKAN=1 $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

# gpu-bundle builds every package's test binary, the CLI, the runner script
# and the loader packages into $(GPU_DIR). On the GPU machine run
#   bash .gpu/run.sh
# from the repository root (the `device` tool: carry .gpu).
gpu-bundle: deps
	@rm -rf $(GPU_DIR) && mkdir -p $(GPU_DIR)/pkg $(GPU_DIR)/debs
	@for p in $$($(GO) list $(PKGS)); do \
		rel=$${p#github.com/gfxcuda/gfxcuda}; rel=$${rel#/}; dir=$${rel:-.}; [ -n "$$rel" ] || rel=root; \
		name=$$(echo $$rel | tr / _); \
		$(GO) test -c -trimpath -ldflags='-s -w' -o $(GPU_DIR)/pkg/$$name/$$name.test $$p || exit 1; \
		if [ -f $(GPU_DIR)/pkg/$$name/$$name.test ]; then \
			echo "$$p" > $(GPU_DIR)/pkg/$$name/IMPORTPATH; \
			if [ -d $$dir/testdata ]; then cp -r $$dir/testdata $(GPU_DIR)/pkg/$$name/; fi; \
		else rm -rf $(GPU_DIR)/pkg/$$name; fi; \
	done
	$(GO) build -trimpath -ldflags='-s -w' -o $(GPU_DIR)/gfxcuda ./cmd/gfxcuda
	@mkdir -p $(GPU_DIR)/pkg/cmd_internal_cli/testdata/docroot/docs && cp README.md $(GPU_DIR)/pkg/cmd_internal_cli/testdata/docroot/ && \
		cp docs/*.md $(GPU_DIR)/pkg/cmd_internal_cli/testdata/docroot/docs/
	@if ls $(DEBS)/*.deb >/dev/null 2>&1; then cp $(DEBS)/*.deb $(GPU_DIR)/debs/; \
	else echo "warning: no loader packages in $(DEBS); the GPU machine must have libvulkan1/libegl1"; fi
	@cp scripts/gpu-run.sh $(GPU_DIR)/run.sh
	@cp scripts/gpu-quick.sh $(GPU_DIR)/quick.sh
	@$(MAKE) --no-print-directory lib >/dev/null && mkdir -p $(GPU_DIR)/pkg/python && \
		cp -r python/gfxcuda python/tests python/bench python/build_backend python/VERSION $(GPU_DIR)/pkg/python/ && cp cmd/libgfxcuda/gfxcuda.h $(GPU_DIR)/pkg/python/ && \
		cp pyproject.toml README.md $(GPU_DIR)/pkg/ && \
		mkdir -p $(GPU_DIR)/pkg/python/examples && cp docs/examples/python/*.py $(GPU_DIR)/pkg/python/examples/ && \
		mkdir -p $(GPU_DIR)/pkg/python/docs && cp docs/*.md $(GPU_DIR)/pkg/python/docs/ && \
		cp scripts/compushady-suite.py $(GPU_DIR)/pkg/python/ && \
		find $(GPU_DIR)/pkg/python -name __pycache__ -prune -exec rm -rf {} + && \
		$(PYTHON) python/build_backend/gfxcuda_build.py wheel --lib $(LIB_DIR)/libgfxcuda.so $(GPU_DIR)/pkg/wheel >/dev/null
	@rm -f $(GPU_DIR)/debs/*-dev_*.deb
	@tar cf - -C $(GPU_DIR) pkg gfxcuda | xz -T1 --lzma2=preset=6,dict=192MiB > $(GPU_DIR)/pkg.txz && rm -rf $(GPU_DIR)/pkg $(GPU_DIR)/gfxcuda
	@$(MAKE) --no-print-directory gpu-pyopengl
	@$(MAKE) --no-print-directory gpu-mujoco
	@du -sh $(GPU_DIR)

# PyOpenGL for the GPU machine, which has none: it is pure Python, so
# Debian's copy (python3-opengl) is packed into $(GPU_DIR)/pyopengl.txz
# (0.5 MB); run.sh and quick.sh unpack it into $(GPU_DIR)/pyopengl and put
# that on PYTHONPATH (python/bench/gl_renderer.py and its test). Alone, it
# adds PyOpenGL (and this tree's run.sh/quick.sh) to an existing bundle
# without rebuilding it. Without PyOpenGL here: a warning, nothing packed.
PYOPENGL ?= /usr/lib/python3/dist-packages/OpenGL
gpu-pyopengl:
	@mkdir -p $(GPU_DIR) && cp scripts/gpu-run.sh $(GPU_DIR)/run.sh && cp scripts/gpu-quick.sh $(GPU_DIR)/quick.sh
	@if [ -f $(PYOPENGL)/__init__.py ]; then \
		tar cf - -C $(PYOPENGL) --exclude=__pycache__ --transform 's,^\.,OpenGL,' . | xz -T1 -6 > $(GPU_DIR)/pyopengl.txz && \
		echo "$(GPU_DIR)/pyopengl.txz: PyOpenGL from $(PYOPENGL)"; \
	else echo "warning: no PyOpenGL at $(PYOPENGL) (Debian python3-opengl): gl_renderer.py cannot run on the GPU machine"; fi

# MuJoCo's C test (python/tests/test_gl_mujoco.py) for the GPU machine,
# which has no libmujoco: python/tests/c/gl_mujoco.c built here against
# libmujoco-dev and the tree's libgfxcuda.so, packed with libmujoco.so.2.2.2
# and the libraries it needs that no system has (libccd, liblodepng,
# libqhull_r, libtinyxml2; ldd's paths, under their sonames) into
# $(GPU_DIR)/mujoco.txz (0.7 MB); the test unpacks it and runs the program
# with LD_LIBRARY_PATH (the tested gfxcuda's library, then these). Without
# libmujoco-dev here: a warning, nothing packed.
MUJOCO_DEPS := mujoco ccd lodepng qhull_r tinyxml2
gpu-mujoco:
	@if [ -f /usr/include/mujoco/mujoco.h ]; then \
		[ -f $(LIB_DIR)/libgfxcuda.so ] || $(MAKE) --no-print-directory lib >/dev/null || exit 1; \
		d=$(GPU_DIR)/mujoco && rm -rf $$d $(GPU_DIR)/mujoco.txz && mkdir -p $$d && \
		gcc -std=c11 -O2 -Wall -Wextra -Werror -o $$d/gl_mujoco python/tests/c/gl_mujoco.c -Icmd/libgfxcuda \
			-L$(LIB_DIR) -l:libgfxcuda.so -lmujoco -lEGL && \
		libs=$$(ldd $$d/gl_mujoco | awk '$$1 ~ /^lib($(shell echo $(MUJOCO_DEPS) | tr ' ' '|'))\.so/ && $$3 ~ /^\// {print $$3}') && \
		[ $$(echo $$libs | wc -w) = $(words $(MUJOCO_DEPS)) ] || { echo "gpu-mujoco: ldd found [$$libs], want lib{$(MUJOCO_DEPS)}" >&2; exit 1; }; \
		cp -L $$libs $$d/ && tar cf - -C $(GPU_DIR) mujoco | xz -T1 -6 > $(GPU_DIR)/mujoco.txz && rm -rf $$d && \
		echo "$(GPU_DIR)/mujoco.txz: gl_mujoco and $$(echo $$libs | xargs -n1 basename | tr '\n' ' ')"; \
	else echo "warning: no libmujoco-dev here: test_gl_mujoco.py cannot run on the GPU machine"; fi

gpu-test: gpu-bundle
	@if command -v nvidia-smi >/dev/null 2>&1; then bash $(GPU_DIR)/run.sh; \
	else echo "No GPU here: $(GPU_DIR) is ready. On the GPU machine run: bash $(GPU_DIR)/run.sh"; fi

clean:
	rm -rf bin $(GPU_DIR) build python/gfxcuda/libgfxcuda.so

# Windows (windows/amd64, cgo with Debian's mingw-w64): docs/windows.md.
# `make test` ends with windows-test. The first run installs the toolchain
# (scripts/windows-deps.sh, as root) and builds shaderc for mingw once
# (scripts/windows-shaderc.sh: about 13 minutes on 2 cores, cached in
# ~/.cache/gfxcuda; it says so before it starts, and prints its progress).
#   make windows       bin/windows/computedemo.exe and the lower layers'
#                      test binaries (bin/windows/*.test.exe), for a
#                      Windows machine
#   make windows-test  go vet ./... for Windows, those packages' tests
#                      under Wine + Xvfb on lavapipe, then computedemo.exe
WIN_DIR  := bin/windows
WIN_PKGS := ./internal/dl ./internal/vk ./vulkan ./spirv ./format ./shader ./shader/wgsl ./internal/shaderc ./compute
# The CLI's tests (cmd/gfxcuda's code; the share tests are Linux-only).
WIN_CLI  := ./cmd/internal/cli
# gfxcuda.dll needs no libgcc DLL, and exports the C API defined in C too.
WIN_DLL_LDFLAGS := -static-libgcc -Wl,--export-all-symbols

windows: $(PROGRESS)
	@scripts/windows-deps.sh
	@scripts/windows-shaderc.sh --check || echo "windows: building shaderc for mingw first, once: about 13 minutes on 2 cores (then cached in $${GFXCUDA_SHADERC_MINGW:-$${XDG_CACHE_HOME:-$$HOME/.cache}/gfxcuda}); progress below"
	@$(PROGRESS) -- sh -c 'scripts/windows-shaderc.sh >/dev/null'
	@mkdir -p $(WIN_DIR)
	@echo "building $(WIN_DIR)/gfxcuda.exe, gfxcuda.dll, computedemo.exe, capi_dispatch.exe and the test binaries of $(WIN_PKGS) $(WIN_CLI) for windows/amd64 (a few minutes the first time)…"
	@eval "$$(scripts/windows-env.sh)" && $(PROGRESS) -- $(GO) build -o $(WIN_DIR)/computedemo.exe ./cmd/internal/computedemo && \
		$(PROGRESS) -- $(GO) build -trimpath -o $(WIN_DIR)/gfxcuda.exe ./cmd/gfxcuda && \
		CGO_LDFLAGS="$$CGO_LDFLAGS $(WIN_DLL_LDFLAGS)" $(PROGRESS) -- $(GO) build -trimpath -buildmode=c-shared -o $(WIN_DIR)/gfxcuda.dll ./cmd/libgfxcuda && \
		rm -f $(WIN_DIR)/gfxcuda.h && \
		$$CC -O2 -Wall -o $(WIN_DIR)/capi_dispatch.exe scripts/windows/capi_dispatch.c && \
		$(PROGRESS) -- $(GO) test -c -o $(WIN_DIR)/ $(WIN_PKGS) $(WIN_CLI)
	@ls $(WIN_DIR)

windows-test: windows
	@echo "go vet ./... for windows/amd64: every package and its test files (Linux-only tests say so with //go:build linux)"
	@eval "$$(scripts/windows-env.sh)" && $(PROGRESS) -- $(GO) vet ./...
	GFXCUDA_REQUIRE_VULKAN=1 $(PROGRESS) -- scripts/windows-test.sh -count=1 -timeout 20m $(WIN_PKGS)
	GFXCUDA_REQUIRE_VULKAN=1 $(PROGRESS) -- scripts/windows-test.sh -count=1 -timeout 20m $(WIN_CLI)
	scripts/windows-test.sh --run $(WIN_DIR)/computedemo.exe
	cd $(WIN_DIR) && ../../scripts/windows-test.sh --run capi_dispatch.exe
	$(GO) build -o build/gfxcuda-linux ./cmd/gfxcuda && scripts/windows-run-compare.sh build/gfxcuda-linux $(WIN_DIR)/gfxcuda.exe

# tmuxmcp — the verbs people expect.
GO      ?= go
BIN     := bin/tmuxmcp
FUZZTIME ?= 30s

.PHONY: run run-stdio build test bench peer lint fuzz install docs clean conformance soak dist dist-bin dist-check

HTTP_ADDR ?= 127.0.0.1:8765

# The version, revision and commit date `tmuxmcp version` prints. The
# version is the tag on HEAD (v0.1.0), else a Go pseudo-version naming the
# commit (v0.1.1-0.20261203182619-6e9df4d7b1dc), "+dirty" with uncommitted
# changes: .ci/version.sh. Revision and date are empty outside a git
# checkout (the build info is used then). `make dist VERSION=v1.2.3` overrides
# (on the command line only: a VERSION in the environment is someone else's).
ifneq ($(origin VERSION),command line)
VERSION := $(shell .ci/version.sh 2>/dev/null || echo v0.0.0-devel)
endif
REVISION := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -modified)
COMMITTED := $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.revision=$(REVISION) -X main.committed=$(COMMITTED)

## run: build and serve MCP over Streamable HTTP on $(HTTP_ADDR)/mcp with the embedded default (a private tmux server -L tmuxmcp, session "agent"); stderr says where the token is and how to watch
run: build
	./$(BIN) --http $(HTTP_ADDR)

## run-stdio: the same over stdio, as MCP client configs launch it
run-stdio: build
	./$(BIN)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tmuxmcp

# The integration tests mostly wait on their own tmux servers and shells:
# more of them at once than go test's default (GOMAXPROCS) keeps a 2-core
# machine busy.
TESTPARALLEL ?= 8

## test: vet and every test, with the race detector, against real tmux on private sockets
test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 -timeout 10m -parallel $(TESTPARALLEL) ./...
	# the engine again with every pane read through control mode (%output), the fallback path
	TMUXMCP_INGEST=control $(GO) test -race -count=1 -timeout 10m -parallel $(TESTPARALLEL) ./engine/
	# the npm launcher: platform mapping, arguments, exit code and signals passed through (a second; needs node >= 18)
	@if command -v node >/dev/null 2>&1 && node -e 'process.exit(process.versions.node.split(".")[0] >= 18 ? 0 : 1)'; then \
	  node --test npm/test/; else echo "node >= 18 not found: the npm launcher's tests are skipped"; fi

## bench: the benchmark suite (latency, run round trip, ingest, idle cost, memory, hot paths, scale curve, under load) against baselines measured in the same run; prints one table, writes docs/bench.md and docs/bench.svg (about 6 minutes; BENCHFLAGS="-only latency,hot" for part). PEERS=libtmux-mcp (a name in bin/peers, or a path to the binary; comma-separated for more) also measures that MCP server beside tmuxmcp: wait latency, run round trip, tmux processes per call, idle CPU
bench: build
	$(GO) run ./cmd/tmuxbench -tmuxmcp $(BIN) $(if $(PEERS),-peers "$(PEERS)") $(BENCHFLAGS)

PEER_SRC ?=
PEER_REV ?= HEAD
## peer: build libtmux-go's MCP server for `make bench PEERS=libtmux-mcp` from a source you give, PEER_SRC=/path/to/libtmux-go (a checkout or git directory, at PEER_REV, or a plain tree); writes bin/peers/libtmux-mcp and libtmux-mcp.rev, the revision the bench reports (bin/ is not committed; only Go modules are downloaded)
peer:
	$(GO) run ./cmd/tmuxbench build-peer -src "$(PEER_SRC)" -rev "$(PEER_REV)" -out bin/peers

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }

## fuzz: run every fuzz target for FUZZTIME each
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./cursor/
	$(GO) test -run '^$$' -fuzz '^FuzzPlain$$' -fuzztime $(FUZZTIME) ./stream/
	$(GO) test -run '^$$' -fuzz '^FuzzParseLine$$' -fuzztime $(FUZZTIME) ./tmux/
	$(GO) test -run '^$$' -fuzz '^FuzzUnescape$$' -fuzztime $(FUZZTIME) ./tmux/
	$(GO) test -run '^$$' -fuzz '^FuzzMarkScanner$$' -fuzztime $(FUZZTIME) ./shell/
	$(GO) test -run '^$$' -fuzz '^FuzzInputRegions$$' -fuzztime $(FUZZTIME) ./shell/
	$(GO) test -run '^$$' -fuzz '^FuzzParseSnapshot$$' -fuzztime $(FUZZTIME) ./shell/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./input/
	$(GO) test -run '^$$' -fuzz '^FuzzCommands$$' -fuzztime $(FUZZTIME) ./approval/
	$(GO) test -run '^$$' -fuzz '^FuzzRedact$$' -fuzztime $(FUZZTIME) ./audit/
	$(GO) test -run '^$$' -fuzz '^FuzzJudge$$' -fuzztime $(FUZZTIME) ./stdio/
	$(GO) test -run '^$$' -fuzz '^FuzzFrames$$' -fuzztime $(FUZZTIME) ./stdio/

install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/tmuxmcp

## docs: regenerate the tool schema snapshots and the tool reference in docs/tools.md after an intended change
docs:
	UPDATE_SNAPSHOTS=1 $(GO) test -count=1 -run 'Snapshots|IsGenerated' ./tools/

clean:
	rm -rf bin dist

# The release builds: static (no cgo), stripped, no local paths. tmuxmcp
# reads /proc and uses Linux sockets and seccomp, so Linux is what it runs
# on; darwin/amd64 and darwin/arm64 do not build yet.
PLATFORMS ?= linux/amd64 linux/arm64
DIST := dist
DIST_LDFLAGS := -s -w $(LDFLAGS)
SHA256 := $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo shasum -a 256)

## dist-bin: static release binaries for $(PLATFORMS) in dist/ (tmuxmcp-GOOS-GOARCH), stamped with $(VERSION) and the revision, and dist/SHA256SUMS
dist-bin:
	rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; echo "build $(DIST)/tmuxmcp-$$os-$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(DIST_LDFLAGS)" -o $(DIST)/tmuxmcp-$$os-$$arch ./cmd/tmuxmcp; \
	done
	cd $(DIST) && $(SHA256) tmuxmcp-* > SHA256SUMS

## dist: dist-bin, and the npm package with those binaries (npx -y tmuxmcp) packed as dist/tmuxmcp-VERSION.tgz, in SHA256SUMS too (needs node and npm)
dist: dist-bin
	@command -v npm >/dev/null 2>&1 || { echo "make dist: npm is needed to pack the npm package (install Node.js), or run make dist-bin for the binaries alone"; exit 1; }
	rm -rf $(DIST)/npm && mkdir -p $(DIST)/npm
	cp -R npm/bin npm/lib npm/package.json npm/README.md LICENSE $(DIST)/npm/
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; mkdir -p $(DIST)/npm/vendor/$$os-$$arch; \
	  cp $(DIST)/tmuxmcp-$$os-$$arch $(DIST)/npm/vendor/$$os-$$arch/tmuxmcp; \
	done
	node npm/stamp.js $(DIST)/npm/package.json "$(VERSION)" $(PLATFORMS)
	cd $(DIST)/npm && npm pack --silent --pack-destination .. >/dev/null
	rm -rf $(DIST)/npm
	cd $(DIST) && $(SHA256) tmuxmcp-* > SHA256SUMS
	@ls -l $(DIST)

## dist-check: make dist, then install the npm package with npx in a temporary HOME as a user would and check --version, doctor, and MCP over stdio with panes read raw (a minute; no network)
dist-check: dist
	VERSION=$(VERSION) .ci/npm-smoke.sh

## conformance: the official MCP conformance suite (server scenarios) over HTTP, with an exact expected-failures baseline
conformance:
	bash .ci/conformance.sh

SOAK ?= 10m
## soak: 20 panes printing, one flooding, agents waiting and running commands, the tmux server killed and restarted twice, for $(SOAK)
soak:
	TMUXMCP_SOAK=$(SOAK) $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./tools/

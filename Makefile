# The task runner: each recipe is what a newcomer and CI run.
.PHONY: demo test dist dist-all test-cross
demo:  ## set up and run the main job: the echo server served and called across lineages and languages
	./scripts/demo.sh
test:  ## set up and run every test (fmt, clippy, Rust unit + integration + interop, bindings, packages)
	./scripts/test.sh
dist:  ## build the packages users install into dist/: wheel + sdist, npm main + platform tarballs, Kotlin jar
	./scripts/dist.sh
dist-all:  ## every platform's packages into dist/ (Linux x86_64/arm64 glibc+musl, Windows x64, macOS), then the cross tests
	./scripts/dist.sh --all
	./scripts/install-test.sh
	./scripts/install-test-cross.sh
test-cross:  ## the cross tests alone, on what dist/ holds (qemu, wine, static checks)
	./scripts/install-test-cross.sh

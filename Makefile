# The task runner: each recipe is what a newcomer and CI run.
.PHONY: demo test dist
demo:  ## set up and run the main job: the echo server served and called across lineages and languages
	./scripts/demo.sh
test:  ## set up and run every test (fmt, clippy, Rust unit + integration + interop, bindings, packages)
	./scripts/test.sh
dist:  ## build the packages users install into dist/: wheel + sdist, npm main + platform tarballs, Kotlin jar
	./scripts/dist.sh

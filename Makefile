# The task runner: each recipe is what a newcomer and CI run.
.PHONY: demo test
demo:  ## set up and run the main job: the echo server served and called across lineages and languages
	./scripts/demo.sh
test:  ## set up and run every test (fmt, clippy, Rust unit + integration + interop)
	./scripts/test.sh

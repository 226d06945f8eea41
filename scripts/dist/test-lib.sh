# The helpers of the install tests (sourced by scripts/install-test.sh and
# scripts/install-test-cross.sh): steps, counted checks, and what they compare with.
# The sourcing script prints "$passed passed, $failed failed" at its end.

step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }
passed=0
failed=0
check() {  # check NAME CMD...: one counted check
  if "${@:2}"; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAILED: $1"; return 1; fi
}
has_line() { grep -qxF -- "$1" <<<"${2//$'\r'/}"; }  # has_line LINE TEXT (Windows' \r ignored)
has_text() { grep -qF -- "$1" <<<"$2"; }              # has_text TEXT HAYSTACK

# wait_url LOG SECONDS: the URL an example server printed ("listening on URL") within SECONDS.
wait_url() {
  local url=""
  for _ in $(seq 1 $(($2 * 10))); do
    url=$(sed -n 's/^listening on //p' "$1" 2>/dev/null | tr -d '\r' | head -1)
    [[ -n "$url" ]] && { echo "$url"; return 0; }
    sleep 0.1
  done
  echo "no 'listening on' line in $1: $(cat "$1")" >&2
  return 1
}

// Command gotest runs `go test -json` with its arguments, prints what plain
// `go test` prints (a line per package, the output of failing tests), and
// then says how many tests skipped and why: plain `go test ./...` shows a
// passing package as one "ok" line, so the tests that skipped because
// ../shared/corpus (or an outside tool) is absent would go unnoticed.
//
//	go run ./internal/testcorpus/gotest ./...
//
// Its exit status is go test's.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// defaultTimeout replaces go test's 10-minute limit per test binary when
// the arguments set none: CI's shared two-core machines have run the
// emulator and bench packages 5-14x slower than on a quiet day, and a
// package killed by the limit shows only its running tests' stacks.
const defaultTimeout = "40m"

func main() {
	args := append([]string{"test", "-json"}, os.Args[1:]...)
	if !hasTimeout(os.Args[1:]) {
		args = append([]string{"test", "-json", "-timeout", defaultTimeout}, os.Args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "gotest: starting go test:", err)
		os.Exit(2)
	}
	res := render(out, os.Stdout)
	err = cmd.Wait()
	summarize(os.Stdout, res)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "gotest:", err)
		os.Exit(2)
	}
}

// hasTimeout reports whether go test's arguments set -timeout.
func hasTimeout(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == "timeout" || strings.HasPrefix(a, "timeout=") {
			return true
		}
	}
	return false
}

// skip is one skipped test and the first line of its skip message.
type skip struct{ pkg, test, why string }

// results is what render saw: the skipped tests, and the failures as
// "pkg TestName" lines (a test still running when its package's binary
// died, from a time-out or a crash, is named with "(unfinished)").
type results struct {
	skips    []skip
	failures []string
}

// render copies the events of r to w as plain go test shows them and
// returns the skipped and failed tests. A test binary killed by go test's
// -timeout (or by a panic) ends its package with no end event for the
// tests it was running: their buffered output, which holds the panic and
// the stacks, is printed when the package fails.
func render(r io.Reader, w io.Writer) results {
	type key struct{ pkg, test string }
	buf := map[key]*strings.Builder{}
	order := map[string][]string{} // package -> tests in the order they first wrote
	var res results
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text()) // not an event: pass it on
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "" && e.Action == "output":
			// The package's own lines: "ok  pkg 0.1s", "FAIL", "? pkg [no test files]".
			if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") {
				fmt.Fprint(w, o)
			}
		case e.Action == "output":
			if buf[k] == nil {
				buf[k] = &strings.Builder{}
				order[e.Package] = append(order[e.Package], e.Test)
			}
			if !strings.HasPrefix(e.Output, "=== ") { // -json's framing; plain go test shows none
				buf[k].WriteString(e.Output)
			}
		case e.Action == "fail" && e.Test != "":
			if b := buf[k]; b != nil {
				fmt.Fprint(w, b.String())
			}
			delete(buf, k)
			res.failures = append(res.failures, e.Package+" "+e.Test)
		case e.Action == "fail":
			for _, test := range order[e.Package] {
				b := buf[key{e.Package, test}]
				if b == nil {
					continue
				}
				fmt.Fprintf(w, "--- UNFINISHED: %s (its package's test binary ended while it ran)\n%s", test, b.String())
				delete(buf, key{e.Package, test})
				res.failures = append(res.failures, e.Package+" "+test+" (unfinished)")
			}
			delete(order, e.Package)
			res.failures = append(res.failures, e.Package)
		case e.Action == "skip" && e.Test != "":
			res.skips = append(res.skips, skip{e.Package, e.Test, skipReason(buf[k])})
			delete(buf, k)
		case e.Action == "pass" && e.Test == "":
			delete(order, e.Package)
		case e.Action == "pass":
			delete(buf, k)
		}
	}
	return res
}

// skipReason is the first "SKIP:" line of a skipped test's output (the
// form internal/testcorpus writes), else its first t.Skip line.
// skipPrefix is where a skip message's reason starts: after "SKIP: " or
// "SKIP (LOUD): ".
var skipPrefix = regexp.MustCompile(`SKIP(?: \([^)]*\))?: `)

func skipReason(b *strings.Builder) string {
	if b == nil {
		return "no reason given"
	}
	var first string
	for _, line := range strings.Split(b.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			continue // framing: "--- SKIP: TestName (0.00s)" names the test, not why
		}
		if m := skipPrefix.FindStringIndex(line); m != nil {
			return line[m[1]:] // "SKIP: why", "SKIP (LOUD): why"
		}
		if first == "" {
			first = line
		}
	}
	if first == "" {
		return "no reason given"
	}
	return first
}

// summarize prints the number of skipped tests per reason (the reason up
// to its first ";" or "(", where the advice starts), then the failures:
// last, so that a log cut to its head and tail still names them.
func summarize(w io.Writer, res results) {
	skips := res.skips
	if len(skips) == 0 {
		fmt.Fprintln(w, "gotest: no test skipped")
	} else {
		count := map[string]int{}
		for _, s := range skips {
			why := s.why
			if i := strings.IndexAny(why, ";("); i > 0 {
				why = strings.TrimSpace(why[:i])
			}
			count[why]++
		}
		reasons := make([]string, 0, len(count))
		for r := range count {
			reasons = append(reasons, r)
		}
		sort.Slice(reasons, func(i, j int) bool {
			return count[reasons[i]] > count[reasons[j]] || count[reasons[i]] == count[reasons[j]] && reasons[i] < reasons[j]
		})
		fmt.Fprintf(w, "gotest: %d tests SKIPPED (FOLDCORPUS_REQUIRE_CORPUS=1 makes the corpus and tool ones failures; go test -v -run NAME shows each):\n", len(skips))
		for _, r := range reasons {
			fmt.Fprintf(w, "  %4d  %s\n", count[r], r)
		}
	}
	if len(res.failures) > 0 {
		fmt.Fprintf(w, "gotest: FAILED:\n")
		for _, f := range res.failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
}

package infra

import (
	"strings"
	"testing"
)

// TestFunctionsReadmeMatchesWiring checks functions/README.md's trigger
// table against infra/: each function's row names the topic its push
// subscription reads (the topic's name without the prefix), the Planner's
// topic is the one the bucket notification publishes to, and no row speaks
// of a trigger infra/ does not create.
func TestFunctionsReadmeMatchesWiring(t *testing.T) {
	m := loadTF(t)
	readme := readFile(t, "../functions/README.md")
	row := func(entry string) string {
		for _, line := range strings.Split(readme, "\n") {
			if strings.HasPrefix(line, "| `"+entry+"`") {
				return line
			}
		}
		t.Errorf("functions/README.md has no trigger row for %s", entry)
		return ""
	}
	entryOf := map[string]string{} // function resource -> entry point
	for name, f := range m.resources("google_cloudfunctions2_function") {
		entryOf["google_cloudfunctions2_function."+name] = m.eval(t, sub(f, "build_config").Attributes["entry_point"].Expr).AsString()
	}
	topicName := func(ref string) string { // google_pubsub_topic.X -> X's name without "PREFIX-"
		name := strings.TrimPrefix(ref, "google_pubsub_topic.")
		b := m.resources("google_pubsub_topic")[name]
		if b == nil {
			t.Fatalf("no topic %s", ref)
		}
		text := string(b.Attributes["name"].SrcRange.SliceBytes(src(t, b.Attributes["name"].SrcRange.Filename)))
		_, after, _ := strings.Cut(text, "${local.name}-")
		return strings.TrimSuffix(strings.TrimSpace(after), `"`)
	}
	seen := map[string]bool{}
	for name, s := range m.resources("google_pubsub_subscription") {
		pc := sub(s, "push_config")
		if pc == nil {
			continue
		}
		var fn, topic string
		for r := range m.refs(pc.Attributes["push_endpoint"].Expr) {
			if e, ok := entryOf[r]; ok {
				fn = e
			}
		}
		for r := range m.refs(s.Attributes["topic"].Expr) {
			if strings.HasPrefix(r, "google_pubsub_topic.") {
				topic = topicName(r)
			}
		}
		if fn == "" || topic == "" {
			t.Errorf("push subscription %s: no function or topic found", name)
			continue
		}
		seen[fn] = true
		if r := row(fn); !strings.Contains(r, "push subscription on the `"+topic+"` topic") {
			t.Errorf("functions/README.md: the %s row does not say it is pushed from the `%s` topic: %s", fn, topic, r)
		}
		if dl := sub(s, "dead_letter_policy"); dl != nil {
			for r := range m.refs(dl.Attributes["dead_letter_topic"].Expr) {
				if strings.HasPrefix(r, "google_pubsub_topic.") && !strings.Contains(row(fn), "dead-lettering to the `"+topicName(r)+"` topic") {
					t.Errorf("functions/README.md: the %s row does not name its dead-letter topic %s", fn, topicName(r))
				}
			}
		}
	}
	for _, e := range entryOf {
		if !seen[e] {
			t.Errorf("function %s has no push subscription in infra/", e)
		}
	}
	for name, n := range m.resources("google_storage_notification") {
		for r := range m.refs(n.Attributes["topic"].Expr) {
			if strings.HasPrefix(r, "google_pubsub_topic.") && !strings.Contains(row("Planner"), "`"+topicName(r)+"` topic, which gets the input bucket's notifications") {
				t.Errorf("functions/README.md: the Planner row does not say that notification %s publishes to its topic %s", name, topicName(r))
			}
		}
	}
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "| `") && strings.Contains(line, "Eventarc") {
			t.Errorf("functions/README.md: a trigger row speaks of Eventarc, which infra/ does not use: %s", line)
		}
	}
}

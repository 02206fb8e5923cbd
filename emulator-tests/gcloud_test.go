package emulatortests

import (
	"os"
	"os/exec"
	"strings"
)

// gcloudShell runs a command line that calls the real gcloud (as a user
// would paste it into a POSIX shell) against the stack's Pub/Sub emulator:
// CLOUDSDK_API_ENDPOINT_OVERRIDES_PUBSUB points gcloud at the emulator,
// CLOUDSDK_AUTH_DISABLE_CREDENTIALS skips credentials, and a private
// CLOUDSDK_CONFIG keeps the user's gcloud configuration out of it. Without
// gcloud the test skips, and fails under FOLDCORPUS_REQUIRE_CORPUS=1 (CI).
func (s *stack) gcloudShell(cmdline string) string {
	s.t.Helper()
	if _, err := exec.LookPath("gcloud"); err != nil {
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			s.t.Fatalf("gcloud required (FOLDCORPUS_REQUIRE_CORPUS=1) but not found: %v (Debian: google-cloud-cli)", err)
		}
		s.t.Skipf("SKIP: gcloud not found (%v): the hand rerun cannot be run with the real client; set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", err)
	}
	host := os.Getenv("PUBSUB_EMULATOR_HOST")
	if host == "" {
		s.t.Fatal("PUBSUB_EMULATOR_HOST is not set")
	}
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Env = append(os.Environ(),
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_PUBSUB=http://"+host+"/",
		"CLOUDSDK_AUTH_DISABLE_CREDENTIALS=true",
		"CLOUDSDK_CORE_PROJECT="+s.project,
		"CLOUDSDK_CORE_DISABLE_PROMPTS=1",
		"CLOUDSDK_CONFIG="+s.t.TempDir(),
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
	return strings.TrimSpace(string(out))
}

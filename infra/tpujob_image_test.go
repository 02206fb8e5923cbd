package infra

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gomlx/go-xla/pkg/installer"
)

// TestTPUJobImageHasThePlugin: the image bakes in libtpu at a pinned
// version, as the plugin file go-xla looks for, in the folder the image
// names in PJRT_PLUGIN_LIBRARY_PATH.
func TestTPUJobImageHasThePlugin(t *testing.T) {
	df := readFile(t, "tpujob.Dockerfile")
	if m := regexp.MustCompile(`(?m)^ARG LIBTPU_VERSION=(\S+)$`).FindStringSubmatch(df); m == nil || !regexp.MustCompile(`^\d+(\.\d+)+$`).MatchString(m[1]) {
		t.Errorf("tpujob.Dockerfile does not pin libtpu (ARG LIBTPU_VERSION=N.N.N...): %v", m)
	}
	if !strings.Contains(df, `"libtpu==${LIBTPU_VERSION}"`) {
		t.Error("tpujob.Dockerfile does not download the pinned libtpu")
	}
	env := regexp.MustCompile(`(?m)^ENV PJRT_PLUGIN_LIBRARY_PATH=(\S+)$`).FindStringSubmatch(df)
	if env == nil {
		t.Fatal("tpujob.Dockerfile does not set PJRT_PLUGIN_LIBRARY_PATH")
	}
	want := "COPY --from=pjrt /" + installer.TPUPJRTPluginName + " " + env[1] + "/" + installer.TPUPJRTPluginName
	if !strings.Contains(df, want) {
		t.Errorf("tpujob.Dockerfile lacks %q: go-xla looks for %s in PJRT_PLUGIN_LIBRARY_PATH", want, installer.TPUPJRTPluginName)
	}
	if !strings.Contains(readFile(t, "tpujob-startup.sh.tftpl"), `"$PJRT_PLUGIN_LIBRARY_PATH/`+installer.TPUPJRTPluginName+`"`) {
		t.Error("the startup script does not check the plugin file the image installs")
	}
}

// TestTPUJobStartup runs the VM's startup script (the template rendered
// with one variable) with stand-ins for docker, gcloud and logger: an image
// without the plugin is refused once, with the reason, and no container
// starts; an image with it starts one container whose restarts are bounded.
func TestTPUJobStartup(t *testing.T) {
	tmpl := readFile(t, "tpujob-startup.sh.tftpl")
	loop := regexp.MustCompile(`(?s)%\{ for k, v in env ~\}\n(.*?)%\{ endfor ~\}\n`)
	body := loop.FindStringSubmatch(tmpl)
	if body == nil {
		t.Fatal("tpujob-startup.sh.tftpl: no env loop")
	}
	script := loop.ReplaceAllString(tmpl, strings.NewReplacer("${k}", "FOLDCORPUS_PROJECT", "${v}", "p").Replace(body[1]))
	script = strings.NewReplacer("${region}", "us-central1", "${image}", "img:1").Replace(script)
	if strings.Contains(script, "${") {
		t.Fatalf("unrendered template variables left: %s", script)
	}
	for _, tc := range []struct {
		name      string
		plugin    bool
		wantRun   bool
		wantError string
	}{
		{"without the plugin", false, false, "has no TPU PJRT plugin"},
		{"with the plugin", true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			calls := filepath.Join(dir, "calls")
			preflight := "1"
			if tc.plugin {
				preflight = "0"
			}
			fake := map[string]string{
				"docker": "#!/bin/bash\necho \"docker $*\" >> " + calls + "\nif [[ \"$*\" == *--entrypoint* ]]; then exit " + preflight + "; fi\n",
				"gcloud": "#!/bin/bash\nexit 0\n",
				"logger": "#!/bin/bash\ncat > /dev/null\n",
			}
			for name, text := range fake {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			log, _ := os.ReadFile(calls)
			started := strings.Contains(string(log), "docker run -d")
			if started != tc.wantRun || (err == nil) != tc.wantRun {
				t.Fatalf("container started %v, script error %v; want started %v\noutput: %s\ndocker calls:\n%s", started, err, tc.wantRun, out, log)
			}
			if tc.wantError != "" && !strings.Contains(string(out), tc.wantError) {
				t.Errorf("output %q lacks %q", out, tc.wantError)
			}
			if started {
				if !strings.Contains(string(log), "--restart on-failure:5") || strings.Contains(string(log), "unless-stopped") || strings.Contains(string(log), "--restart always") {
					t.Errorf("the container's restarts are not bounded: %s", log)
				}
			}
		})
	}
}

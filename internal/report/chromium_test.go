package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// chromium returns the headless browser, skipping the test loudly when it
// is absent (failing it when CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required when CI=true: apt-get install -y chromium")
	}
	t.Skip("SKIP (LOUD): chromium not installed, the report page was NOT opened in a browser; apt-get install -y chromium (CI=true makes this a failure)")
	return ""
}

// bands counts the separate vertical bands of rows that hold at least min
// pixels of colour c (the plots' fill), i.e. the rows of plots on the page.
func bands(img image.Image, match func(r, g, b uint32) bool, min int) (bands, pixels int) {
	b := img.Bounds()
	in := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		n := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if match(r>>8, g>>8, bl>>8) {
				n++
			}
		}
		pixels += n
		switch {
		case n >= min && !in:
			bands++
			in = true
		case n == 0:
			in = false
		}
	}
	return bands, pixels
}

func TestPageInChromium(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	dir := t.TempDir()
	store := localblob.Store{}
	shards, err := WriteSynthetic(ctx, store, dir, SynthConfig{Shards: 30, RowsPerShard: 5, FailEvery: 12, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(ctx, store, dir, Options{Shards: shards})
	if err != nil {
		t.Fatal(err)
	}
	index, err := rep.WriteDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(index)
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:|//)[^"]*"`).Find(page); m != nil {
		t.Errorf("index.html needs the network: %s", m)
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--screenshot="+shot, "--window-size=1280,2400", "file://"+index)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	if keep := os.Getenv("FOLDCORPUS_REPORT_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2400 {
		t.Errorf("screenshot %v, want 1280x2400", b)
	}
	// Non-blank: a good share of the page is not background white.
	_, ink := bands(img, func(r, g, b uint32) bool { return r < 240 || g < 240 || b < 240 }, 1)
	if frac := float64(ink) / (1280 * 2400); frac < 0.05 {
		t.Errorf("screenshot is %.1f%% ink: blank page", 100*frac)
	}
	// Plot regions: the bars' steel blue (drawn only inside the PNGs) in
	// one band per row of plots (2 plots a row), and the orange series.
	blue := func(r, g, b uint32) bool { return absDiff(r, 70) < 12 && absDiff(g, 130) < 12 && absDiff(b, 180) < 12 }
	orange := func(r, g, b uint32) bool { return absDiff(r, 230) < 14 && absDiff(g, 126) < 14 && absDiff(b, 34) < 14 }
	rows := (len(rep.Summary.Plots) + 1) / 2
	n, px := bands(img, blue, 3)
	t.Logf("plot bands %d, blue pixels %d, plot rows %d", n, px, rows)
	if n < rows-1 || px < 20000 {
		t.Errorf("screenshot shows %d bands (%d pixels) of plot bars, want at least %d rows of plots", n, px, rows-1)
	}
	if _, px := bands(img, orange, 1); px < 1000 {
		t.Errorf("screenshot shows %d pixels of the wall-clock/throughput plots, want more", px)
	}
	t.Logf("screenshot %s (%d bytes); set FOLDCORPUS_REPORT_SCREENSHOT=FILE to keep it", shot, len(data))
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

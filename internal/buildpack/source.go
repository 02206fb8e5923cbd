package buildpack

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// SourceFiles lists the repository files the deployment zips as the
// functions' source (infra/functions.tf: local.function_source_files and
// local.function_source_globs, with Terraform's fileset patterns; test
// files and testdata are left out there too), relative to repo, sorted.
func SourceFiles(repo string) ([]string, error) {
	tf, err := parseFunctionsTF(repo)
	if err != nil {
		return nil, err
	}
	lists := map[string][]string{}
	for _, n := range []string{"function_source_files", "function_source_globs"} {
		v, ok := tf.locals[n]
		if !ok || !v.CanIterateElements() {
			continue
		}
		for _, e := range v.AsValueSlice() {
			lists[n] = append(lists[n], e.AsString())
		}
	}
	if len(lists["function_source_files"]) == 0 || len(lists["function_source_globs"]) == 0 {
		return nil, fmt.Errorf("%s: no literal local.function_source_files or local.function_source_globs", tf.path)
	}
	set := map[string]bool{}
	for _, f := range lists["function_source_files"] {
		set[f] = true
	}
	err = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") || strings.Contains(rel, "testdata/") {
			return nil
		}
		for _, g := range lists["function_source_globs"] {
			if FilesetMatch(g, rel) {
				set[rel] = true
			}
		}
		return nil
	})
	files := make([]string, 0, len(set))
	for f := range set {
		files = append(files, f)
	}
	sort.Strings(files)
	return files, err
}

// FilesetMatch matches name against a Terraform fileset pattern: {a,b}
// alternatives, ** for any number of folders, path.Match otherwise.
func FilesetMatch(pattern, name string) bool {
	if i := strings.IndexByte(pattern, '{'); i >= 0 {
		j := strings.IndexByte(pattern[i:], '}') + i
		if j < i {
			return false
		}
		for _, alt := range strings.Split(pattern[i+1:j], ",") {
			if FilesetMatch(pattern[:i]+alt+pattern[j+1:], name) {
				return true
			}
		}
		return false
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if matchSegments(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && matchSegments(pat[1:], name[1:])
}

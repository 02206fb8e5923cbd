package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestBenchParseSmoke(t *testing.T) {
	dir := t.TempDir()
	cif := "data_S\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n_atom_site.auth_asym_id\n" +
		"ATOM 1 C CA . ALA A 1 0 0 0 1 90 1 A\nATOM 2 C CA . GLY A 2 3.8 0 0 1 80 2 A\n"
	if err := os.WriteFile(filepath.Join(dir, "s.cif"), []byte(cif), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-trials", "1", "-reps", "1", "-python", filepath.Join(dir, "no-python"), dir}
	if err := Parse(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	if err := Parse(context.Background(), []string{t.TempDir()}); err == nil {
		t.Fatal("want an error for a directory without .cif files")
	}
}

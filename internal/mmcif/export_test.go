package mmcif

// CheckFastMatchesGeneral is checkFastMatchesGeneral for the external tests
// (gemmi_diff_test.go, gemmi_table_test.go), which cannot live in package
// mmcif: they import gemmitest, which imports mmcif.
var CheckFastMatchesGeneral = checkFastMatchesGeneral

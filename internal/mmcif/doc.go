// Package mmcif reads mmCIF and PDB-format coordinate files (plain or
// gzip, detected by magic bytes; the format detected by content, not by
// name) into a structure.Structure the way gemmi 0.5.7's read_structure
// does, in pure Go and without per-atom allocations.
//
// # Format
//
// After gunzip, blank and '#' lines are skipped (gemmi's
// coor_format_from_content): a first token "data_..." (or any CIF syntax:
// a tag, loop_, global_, save_), or nothing at all, is mmCIF; otherwise the
// input is PDB format when some line starts with a PDB record name (ATOM,
// HETATM, HEADER, REMARK, MODEL, END, ...). Anything else (mmJSON, FASTA,
// an HTML page, binary) is one ErrUnknownFormat error; gemmi would read
// such text as an empty PDB file.
//
// # PDB format, as gemmi 0.5.7 reads it (pdb.go, pdbfield.go, pdbentity.go)
//
//   - Fixed columns as gemmi's pdb_impl reads them: at most 120 bytes of a
//     line; chain columns 21-22, residue name 18-20, number 23-26 (hybrid-36
//     above 9999; blank: no number), insertion code 27, segment 73-76 (part
//     of the residue's identity), atom name 13-16, altloc 17, coordinates
//     31-54, occupancy 55-60 (1 when the line is shorter), B 61-66 (20),
//     element 77-78 or, without a letter there, from the atom name. Numbers
//     are the longest numeric prefix of the field, correctly rounded, 0 when
//     there is none; record names are compared without case. The two fields
//     gemmi reads without checking the line's length (MODEL's number, columns
//     11-14, and ANISOU's U11) come, on a short line, from what earlier lines
//     left in gemmi's line buffer, and so they do here.
//   - Models: MODEL numbers, or 1, 2, ... for atoms outside MODEL records
//     (ENDMDL without MODEL separates them); a repeated MODEL number, MODEL
//     inside a model, and atoms after ENDMDL that would reuse a model number
//     are errors, as in gemmi. END stops the reading. A file without atoms
//     has one empty model.
//   - Chain parts start whenever the chain name changes; residues within a
//     part by (number, insertion code without case, segment, name), an atom
//     of a residue seen earlier in the part joining it. Parts of one name in
//     a model are merged in order (merge_chain_parts).
//   - TER makes every residue of its chain part a polymer residue; residues
//     after it in the part, and in later parts of that chain, are water or
//     non-polymer. A chain with any residue still untyped gets gemmi's
//     add_entity_types: check_polymer_type (tabulated amino acids or
//     nucleotides, or untabulated ones with a CA or P, more than half of the
//     chain's residues) and is_polymer_residue (a standard residue written
//     as HETATM is not) make the leading run of polymer residues Polymer,
//     the rest Water or NonPolymer. Subchains are then named as
//     setup_entities names them: chain name + "poly", + seq id, + "wat".
//     SEQRES does not change the residues.
//   - Errors, as gemmi's (each names the line): an ATOM/HETATM line shorter
//     than 55 bytes, ANISOU not after an atom or repeated, a charge that is
//     neither "2+" nor "+2" form, data_ or mmJSON text before any atom. A NUL
//     byte is an error too (gemmi's C strings would cut the line there).
//     TestPDBSnapshotsAgreeWithGemmi, TestCorpusAsPDBAgreesWithGemmi,
//     TestPDBRecordsAsGemmi and TestGemmiDifferentialPDB check all this
//     against python3-gemmi at test time.
//   - Speed (bench inspect --pdb): an atom line whose residue columns are
//     the previous line's skips the residue lookup, fixed-form numbers take
//     one pass and one division, atom names are found by their four
//     columns; about the mmCIF reader's CPU per atom.
//   - Read and ReadInto give a PDB structure no name (Structure.Name ""),
//     ReadFile and ReadFrom the name gemmi gives it from the path (PDBName).
//     Residue.LabelSeq and EntityID are 0 and "": the format has neither.
//
// # Syntax
//
// The whole file is tokenized as CIF 1.1 with gemmi 0.5.7's grammar (data
// blocks, tag-value pairs, loop_, save_ frames, single- and double-quoted
// values that close only before whitespace, '#' or the end, ;-text fields,
// # comments, '.' and '?', case-insensitive keywords and tags, any column
// order). Tokens are spans into the input; no value is copied unless it
// becomes a name in the result. Only _atom_site (streamed row by row),
// _entity and _struct_asym of the first data block (outside save_ frames,
// which gemmi does not search) are turned into values; every other loop is
// tokenized and counted (a loop whose value count is not a multiple of its
// tag count is an error, as in gemmi) and skipped.
//
// Bytes: a quoted value may hold any byte but a newline (gemmi relaxed its
// quoted_tail rule for PDB 5Q1H, whose title has a no-break space; Latin-1
// and UTF-8 text from other tools reads the same way), and so may text
// fields and comments; unquoted values, tags and block names are printable
// ASCII, anything else there is an error, as in gemmi.
//
// Duplicates, as gemmi's check_for_duplicates refuses them: a tag given
// twice in a block (as pairs or loop columns, compared without case; tags
// inside save_ frames are not the block's), a block name given twice
// (without case; a bare data_ is "#"), a save_ frame name given twice in a
// block. The frame grammar is gemmi's too: no frame inside a frame, a bare
// save_ only to close one, every frame closed before its block ends, and
// stop_ only right after a loop's values.
// TestNonASCIIInQuotedValuesAsGemmi and TestDuplicateTagsAsGemmi check
// these rules against python3-gemmi at test time.
//
// # Speed
//
// An _atom_site row that is one line of plain tokens (unquoted, printable,
// space-separated, no reserved word: nearly every row of AFDB and PDB
// files) is read in one pass over the line (fastrow.go): the needed columns
// are picked by index, numeric columns are converted while scanned (the
// same correctly rounded decimal path as parseFloat), and when the residue
// key (model, chain, comp, seq, insertion code) is byte for byte the
// previous row's, the residue lookup is skipped.
//
// In column-aligned files (AFDB; wwPDB entries) every row has the same
// length and its tokens at the same offsets, and a row differs from the
// one before it in a few tokens. After one row has been read byte by byte
// its layout is the row template (template.go); each next line is then
// classified 64 bytes at a time by an AVX2 routine (linemask_amd64.s: space
// or not, changed from the line before or not, control or non-ASCII, bytes
// that cannot start a plain value, underscores) and, when it has the
// template's length and token starts and nothing odd, is read at the known
// offsets: the coordinates are converted, every other value only when its
// bytes changed, and names are looked up by their column's bytes (token
// and padding, one word). Reserved words all hold '_' and are looked for
// only in lines that hold one. The values of the loops that are only
// counted are counted 64 bytes at a time too, while the bytes are plain
// values and blanks. Without AVX2 (or off amd64) every line goes byte by
// byte.
//
// Any other line goes through the general tokenizer. FuzzRead,
// TestFastPathMatchesGeneral and TestTemplateEditsMatchGeneral check that
// the fast paths read every input, edited files included, exactly as the
// general tokenizer does, and TestLineMasksMatchGo and
// TestCountPlainMatchesGo check the assembly against plain Go. Builders
// (scratch slices, interned names) are pooled between reads, and ReadInto
// reuses the caller's structure, so a steady-state ReadInto allocates
// about one object; Read stays safe for concurrent use.
//
// Measured on the AFDB corpus files and rejected (BenchmarkReadAFDB and
// BenchmarkReadIntoAFDB -cpu 1, interleaved runs, AMD EPYC): the
// byte-at-a-time token and space loops predict well, and every
// word-at-a-time (SWAR) replacement tried in pure Go was slower: 8-byte
// space skip and token end search, 23.5 -> 38 ms; the whole line
// classified into a non-space bit mask and tokens read off its
// transitions, 23 -> 25.5 ms; only the trailing columns no field reads
// checked that way, 23.6 -> 26.6 ms; the row template with the line
// classified in SWAR words, 23.5 -> 25 ms. Decimal conversion beats every
// alternative measured: the 8-digit multiply trick, 23.4 -> 27.3 ms; the
// same on template rows with the token's end known and no branch on the
// sign, 13.7 -> 14.7 ms; the three coordinates of a row at once in AVX2,
// 12.8 -> 13.7 ms; a loop-free [-]D.DDD form, 5.7 -> 6.6 ns per number.
// The counted loops' short lines through a template: 14.0 -> 14.5 ms.
// Kept: the AVX2 template, 20.3 -> 13.0 ms; then whole-word mask stores
// (store forwarding), names by region, block counting: 13.0 -> 11.9 ms
// (1.68 GB/s).
//
// # Structure, as gemmi 0.5.7 builds it
//
//   - Models by pdbx_PDB_model_num (name "1" when the column is absent), in
//     order of first appearance.
//   - Chains by auth_asym_id (label_asym_id when auth_asym_id is absent): a
//     new chain part starts whenever the chain name or model changes; after
//     entity types are assigned, parts with the same name in one model are
//     merged in order (gemmi's merge_chain_parts, on by default in
//     read_structure).
//   - Residues by (auth_seq_id, pdbx_PDB_ins_code, auth_comp_id) within the
//     chain part (gemmi takes auth_comp_id and auth_atom_id when those
//     columns exist, label_comp_id and label_atom_id otherwise; insertion
//     codes match without case, as SeqId's operator== compares them): an
//     atom whose residue was seen earlier in the part (even after other
//     residues) joins that residue; microheterogeneity (two comp_ids at one
//     seq id) gives two residues.
//   - label_seq_id: gemmi 0.5.7 keeps it as written and leaves it empty
//     (None) for '.', '?' or a missing column; LabelSeq is then 0 (a written
//     0 reads the same). Contacts (structure.SeqNumbers) number a polymer
//     none of whose residues has one by position, so that files without
//     the column (Rosetta's, PDB format) have contacts; gemmi itself
//     numbers them only when asked (assign_label_seq_id). The other values
//     that are silently 0 or empty where gemmi has none: AuthSeq for an
//     auth_seq_id of '?' (gemmi None), Model.Num for a model name that is
//     not an integer, EntityID without label_entity_id. TestLabelSeqAsGemmi
//     checks these readings against python3-gemmi.
//   - Atoms keep every altloc; the B-factor and occupancy are parsed as
//     float64 then stored as float32 (an unquoted '?' or '.' reads as
//     gemmi's defaults, 50 and 1); coordinates are correctly rounded
//     float64 (Clinger fast path, strconv.ParseFloat otherwise).
//   - gemmi compares each row's raw pdbx_PDB_model_num token (quotes
//     included) with the current model's name, so a quoted or null model
//     number starts a new chain part on every row: every atom is a residue
//     of its own (merged into one chain later), and none is a polymer
//     without _entity. We do the same.
//   - Required columns: id, type_symbol, label_alt_id, label_asym_id,
//     Cartn_x/y/z, occupancy, B_iso_or_equiv, auth_seq_id. Without any one
//     of them gemmi silently reads no atoms (0 models), and so do we.
//   - Entity types (fill_residue_entity_type, before parts are merged): each
//     run of consecutive residues of a chain part that share label_asym_id
//     takes the _entity.type (exact, case-sensitive) of its entity. A
//     subchain's entities are those _struct_asym lists it under when that
//     category is present, else the label_entity_id of the first residue of
//     each of its runs in the first model; of several, the first _entity
//     row wins; an empty label_asym_id has none. When that is unknown, the
//     run is Water if its first residue is water, Polymer if it spans two
//     or more sequence positions (gemmi's ResidueSpan::length(): consecutive
//     residues with the same seq id, alternatives of one position, count
//     once; so a chain whose residues all sit at one position is not a
//     polymer), NonPolymer otherwise. Chain.Polymer() is then gemmi's
//     get_polymer: the first run of Polymer residues of one subchain, every
//     alternative residue included.
//   - setup_entities, which the reference generators call: a merged chain
//     in which some residue has an empty label_asym_id gets gemmi's
//     subchain names ("poly", seq id, "wat" after the chain name), so its
//     polymer is its first run of polymer residues.
//     gemmitest (TestConformerRulesAgreeWithGemmi, TestGemmiDifferential)
//     checks these rules against python3-gemmi at test time.
//   - One-letter codes (OneLetter): gemmi's tabulated one_letter_code,
//     upper-cased (MSE -> M), X for untabulated residues (restable.go was
//     generated from gemmi 0.5.7's table).
//
// # Where gemmi 0.5.7 fails or reads nothing (../shared/corpus)
//
//	file                               gemmi 0.5.7                            foldcorpus
//	edge/ciftools_0emp.cif (empty)     structure: vector::_M_range_check      error: no data_ block (ErrNoBlock)
//	edge/pymmcif_specialTestFile.cif   CIF ok; make_structure throws          0 models: valid CIF without _atom_site
//	                                   vector::_M_range_check (metadata)
//	edge/biopandas_3eiy_stripped_ele   line 1049: wrong number of values      error: line 1049: wrong number of values
//	                                   in the loop                            in the loop _atom_site... (31097 for 21 tags)
//	edge/pymmcif_1bna-errors.cif       line 38: wrong number of values        error: line 22: tag _cell.ndb_unique_axis
//	                                                                          has no value (the file's first error; gemmi
//	                                                                          checks missing values after parsing)
//	edge/pymmcif_unicode-test.cif      line 3: wrong number of values (a      error: line 11: byte 0xc4 not allowed
//	                                   non-ASCII value ends the loop)         outside a text field
//	edge/biopython_7CFN_aligned.cif    0 models (no auth_seq_id)              0 models, same rule
//	edge/zreduce_*.cif                 0 models (no label_alt_id,             0 models, same rule
//	                                   auth_seq_id)
//	edge/gemmi_eol-test.cif,           0 models (no _atom_site)               0 models
//	edge/ciftools_0red.cif
//	edge/biojava_difficult_mmcif_      block name "#" for a bare data_        "#", as gemmi
//	quoting.cif
//
// Every error is wrapped with derrors.ErrPermanent and names the line where
// one applies; ReadFile adds the path. Nothing in this package panics on
// bad input (FuzzRead) or touches the network.
package mmcif

package hubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// serveStorage is the LFS storage (S3 behind the Hub's signed URLs): PUT
// /objects/OID?size=N for a basic transfer, PUT /parts/UPLOAD/N for one
// part of a multipart transfer (answering the part's ETag).
func (s *Server) serveStorage(w http.ResponseWriter, r *http.Request) {
	s.delay()
	if s.inject5xx(w) {
		return
	}
	if r.Method != http.MethodPut || !s.checkSigned(w, r, s.wr.storage.URL) {
		if r.Method != http.MethodPut {
			http.Error(w, "MethodNotAllowed", http.StatusMethodNotAllowed)
		}
		return
	}
	p := strings.TrimPrefix(r.URL.Path, "/")
	switch {
	case strings.HasPrefix(p, "objects/"):
		s.putObject(w, r, strings.TrimPrefix(p, "objects/"))
	case strings.HasPrefix(p, "parts/"):
		id, n, _ := strings.Cut(strings.TrimPrefix(p, "parts/"), "/")
		s.putPart(w, r, id, n)
	default:
		http.Error(w, "NoSuchKey", http.StatusNotFound)
	}
}

func (s *Server) putObject(w http.ResponseWriter, r *http.Request, oid string) {
	size, _ := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
	data, err := io.ReadAll(io.LimitReader(r.Body, size+1))
	if err != nil {
		return // the client went away
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != size || hex.EncodeToString(sum[:]) != oid {
		http.Error(w, "BadDigest: the content does not match its oid and size", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.wr.objects[oid] = data
	s.wr.counts.ObjectUploads[oid]++
	s.wr.counts.BytesUploaded += int64(len(data))
	s.mu.Unlock()
	w.Header().Set("ETag", `"`+md5hex(data)+`"`)
}

func (s *Server) putPart(w http.ResponseWriter, r *http.Request, id, num string) {
	n, err := strconv.Atoi(num)
	s.mu.Lock()
	up := s.wr.uploads[id]
	s.mu.Unlock()
	if up == nil || err != nil || n < 1 || int64(n-1)*up.chunk >= up.size {
		http.Error(w, "NoSuchUpload", http.StatusNotFound)
		return
	}
	want := min(up.chunk, up.size-int64(n-1)*up.chunk)
	if every := s.opts.Write.DropPartEvery; every > 0 {
		s.mu.Lock()
		s.wr.partReqs++
		drop := s.wr.partReqs%every == 0
		if drop {
			s.wr.counts.DroppedParts++
		}
		s.mu.Unlock()
		if drop {
			_, _ = io.CopyN(io.Discard, r.Body, want/2)
			panic(http.ErrAbortHandler) // the connection drops mid-body
		}
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, want+1))
	if err != nil {
		return
	}
	if int64(len(data)) != want {
		http.Error(w, "IncompleteBody: the part's size is not the chunk size", http.StatusBadRequest)
		return
	}
	etag := `"` + md5hex(data) + `"`
	s.mu.Lock()
	up.parts[n], up.etags[n] = data, etag
	s.wr.counts.Parts++
	s.wr.counts.BytesUploaded += int64(len(data))
	s.mu.Unlock()
	w.Header().Set("ETag", etag)
}

// completeMultipart is the completion URL of a multipart upload: every part
// must be there with the ETag its PUT answered; the assembled object must
// have the oid's sha256.
func (s *Server) completeMultipart(w http.ResponseWriter, r *http.Request) {
	if !s.checkSigned(w, r, s.Hub.URL) {
		return
	}
	var req struct {
		OID   string `json:"oid"`
		Parts []struct {
			PartNumber int    `json:"partNumber"`
			ETag       string `json:"etag"`
		} `json:"parts"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.URL.Query().Get("uploadId")
	up := s.wr.uploads[id]
	if up == nil {
		if _, ok := s.wr.objects[req.OID]; ok {
			writeJSON(w, map[string]any{"success": true}) // a retried completion
			return
		}
		hubError(w, http.StatusNotFound, "", "NoSuchUpload "+id)
		return
	}
	nparts := int((up.size + up.chunk - 1) / up.chunk)
	if req.OID != up.oid || len(req.Parts) != nparts {
		hubError(w, http.StatusBadRequest, "", "InvalidPart: want "+strconv.Itoa(nparts)+" parts of "+up.oid)
		return
	}
	var data []byte
	for i, p := range req.Parts {
		if p.PartNumber != i+1 || up.etags[p.PartNumber] == "" || p.ETag != up.etags[p.PartNumber] {
			hubError(w, http.StatusBadRequest, "", "InvalidPart: part "+strconv.Itoa(p.PartNumber)+" missing or its ETag differs")
			return
		}
		data = append(data, up.parts[p.PartNumber]...)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != up.oid {
		hubError(w, http.StatusBadRequest, "", "BadDigest: the assembled object does not match its oid")
		return
	}
	s.wr.objects[up.oid] = data
	s.wr.counts.ObjectUploads[up.oid]++
	delete(s.wr.uploads, id)
	writeJSON(w, map[string]any{"success": true})
}

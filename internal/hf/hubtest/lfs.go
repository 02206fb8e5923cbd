package hubtest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type lfsAction struct {
	Href   string            `json:"href"`
	Header map[string]string `json:"header,omitempty"`
}

func (s *Server) lfsBatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Operation string   `json:"operation"`
		Transfers []string `json:"transfers"`
		HashAlgo  string   `json:"hash_algo"`
		Objects   []struct {
			OID  string `json:"oid"`
			Size int64  `json:"size"`
		} `json:"objects"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	if req.Operation != "upload" || (req.HashAlgo != "" && req.HashAlgo != "sha256") {
		hubError(w, http.StatusBadRequest, "", "only upload with sha256")
		return
	}
	multi := false
	for _, t := range req.Transfers {
		multi = multi || t == "multipart"
	}
	wo := s.opts.Write
	expires := time.Now().Add(s.opts.URLTTL).UnixNano()
	var objs []map[string]any
	transfer := "basic"
	s.mu.Lock()
	s.wr.counts.Batches++
	if s.wr.counts.Batches <= wo.ExpiredUploads {
		expires = time.Now().Add(-time.Second).UnixNano()
	}
	for _, o := range req.Objects {
		obj := map[string]any{"oid": o.OID, "size": o.Size}
		objs = append(objs, obj)
		if _, err := hex.DecodeString(o.OID); err != nil || len(o.OID) != 64 || o.Size < 0 {
			obj["error"] = map[string]any{"code": 422, "message": "invalid oid or size"}
			continue
		}
		if _, ok := s.wr.objects[o.OID]; ok {
			continue // already stored: no actions
		}
		obj["authenticated"] = true
		verify := lfsAction{Href: s.Hub.URL + "/datasets/" + s.opts.Repo + ".git/info/lfs/objects/verify"}
		if multi && o.Size >= wo.MultipartThreshold {
			transfer = "multipart"
			s.wr.nextID++
			id := strconv.Itoa(s.wr.nextID)
			s.wr.uploads[id] = &multipart{oid: o.OID, size: o.Size, chunk: wo.ChunkSize, parts: map[int][]byte{}, etags: map[int]string{}}
			h := map[string]string{"chunk_size": strconv.FormatInt(wo.ChunkSize, 10)}
			for n := 1; int64(n-1)*wo.ChunkSize < o.Size; n++ {
				h[fmt.Sprintf("%05d", n)] = s.signed(s.wr.storage.URL+"/parts/"+id+"/"+strconv.Itoa(n), expires)
			}
			done := fmt.Sprintf("%s/api/complete_multipart?uploadId=%s&oid=%s", s.Hub.URL, id, o.OID)
			obj["actions"] = map[string]any{"upload": lfsAction{Href: s.signed(done, expires), Header: h}, "verify": verify}
			continue
		}
		put := s.signed(fmt.Sprintf("%s/objects/%s?size=%d", s.wr.storage.URL, o.OID, o.Size), expires)
		obj["actions"] = map[string]any{"upload": lfsAction{Href: put}, "verify": verify}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/vnd.git-lfs+json")
	_ = json.NewEncoder(w).Encode(map[string]any{"transfer": transfer, "objects": objs, "hash_algo": "sha256"})
}

// signed appends an expiry and an HMAC of the URL to u.
func (s *Server) signed(u string, expires int64) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	u += fmt.Sprintf("%sX-Expires=%d", sep, expires)
	return u + "&X-Signature=" + s.sign("upload", u, 0)
}

// checkSigned checks the signature and expiry of a signed request URL.
func (s *Server) checkSigned(w http.ResponseWriter, r *http.Request, base string) bool {
	q := r.URL.RawQuery
	i := strings.LastIndex(q, "&X-Signature=")
	if i < 0 || s.sign("upload", base+r.URL.EscapedPath()+"?"+q[:i], 0) != q[i+len("&X-Signature="):] {
		http.Error(w, "AccessDenied: bad signature", http.StatusForbidden)
		return false
	}
	exp, _ := strconv.ParseInt(r.URL.Query().Get("X-Expires"), 10, 64)
	if time.Now().UnixNano() > exp {
		s.mu.Lock()
		s.wr.counts.ExpiredPuts++
		s.mu.Unlock()
		http.Error(w, "AccessDenied: Request has expired", http.StatusForbidden)
		return false
	}
	return true
}

func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	var req struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	data, ok := s.wr.objects[req.OID]
	s.mu.Unlock()
	if !ok || int64(len(data)) != req.Size {
		hubError(w, http.StatusNotFound, "", "object "+req.OID+" not found")
		return
	}
	writeJSON(w, map[string]any{"success": true})
}

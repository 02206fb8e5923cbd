package gcs

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"syscall"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// translate classifies an SDK error with the sentinels of internal/derrors,
// keeping the original error in the chain.
func translate(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, storage.ErrObjectNotExist), errors.Is(err, storage.ErrBucketNotExist):
		return wrap(derrors.ErrNotFound, err)
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		return derrors.Transient(err)
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return byHTTPStatus(gerr.Code, err)
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.OK && st.Code() != codes.Unknown {
		switch st.Code() {
		case codes.NotFound:
			return wrap(derrors.ErrNotFound, err)
		case codes.FailedPrecondition, codes.AlreadyExists:
			return wrap(derrors.ErrExists, err)
		case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Internal, codes.Aborted:
			return derrors.Transient(err)
		}
		return err
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		return derrors.Transient(err)
	}
	return err
}

func byHTTPStatus(code int, err error) error {
	switch {
	case code == http.StatusNotFound:
		return wrap(derrors.ErrNotFound, err)
	case code == http.StatusPreconditionFailed:
		return wrap(derrors.ErrExists, err)
	case code == http.StatusTooManyRequests, code == http.StatusRequestTimeout, code >= 500:
		return derrors.Transient(err)
	}
	return err
}

func wrap(sentinel, err error) error {
	if errors.Is(err, sentinel) {
		return err
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }

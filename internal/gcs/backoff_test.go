package gcs

import (
	"time"

	"github.com/googleapis/gax-go/v2"
)

func gaxBackoff() gax.Backoff {
	return gax.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}
}

package functions

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// CloudEvent types the functions accept.
const (
	StorageFinalized = "google.cloud.storage.object.v1.finalized"
	PubSubPublished  = "google.cloud.pubsub.topic.v1.messagePublished"
)

// pubsubMessage is the "message" of a messagePublished CloudEvent (and of a
// Pub/Sub push request).
type pubsubMessage struct {
	Data        []byte            `json:"data"` // base64 in JSON
	Attributes  map[string]string `json:"attributes"`
	MessageID   string            `json:"messageId"`
	PublishTime time.Time         `json:"publishTime"`
}

type pubsubData struct {
	Message      pubsubMessage `json:"message"`
	Subscription string        `json:"subscription"`
}

// storageObject is the data of a storage finalized CloudEvent, and the body
// of a GCS Pub/Sub notification (the JSON API object resource).
type storageObject struct {
	Bucket     string  `json:"bucket"`
	Name       string  `json:"name"`
	Generation flexInt `json:"generation"`
	Size       flexInt `json:"size"`
}

// flexInt reads an int64 written as a JSON number or string (GCS events
// write "generation" and "size" as strings).
type flexInt int64

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not an integer: %s", b)
	}
	*f = flexInt(n)
	return nil
}

// decodePubSub returns the Pub/Sub message of a messagePublished event.
func decodePubSub(e event.Event) (pubsubMessage, error) {
	if e.Type() != PubSubPublished {
		return pubsubMessage{}, derrors.Permanent(fmt.Errorf("event %s: type %q, want %s", e.ID(), e.Type(), PubSubPublished))
	}
	var d pubsubData
	if err := json.Unmarshal(e.Data(), &d); err != nil {
		return pubsubMessage{}, derrors.Permanent(fmt.Errorf("event %s: decoding Pub/Sub data: %w", e.ID(), err))
	}
	return d.Message, nil
}

// decodeFinalized returns the object of a storage finalized event, or of a
// Pub/Sub message carrying a GCS OBJECT_FINALIZE notification. ok is false
// for other notifications (metadata updates, deletes), which are ignored.
func decodeFinalized(e event.Event) (obj storageObject, ok bool, err error) {
	var data []byte
	switch e.Type() {
	case StorageFinalized:
		data = e.Data()
	case PubSubPublished:
		m, err := decodePubSub(e)
		if err != nil {
			return obj, false, err
		}
		if t := m.Attributes["eventType"]; t != "OBJECT_FINALIZE" {
			return obj, false, nil
		}
		data = m.Data
		if len(data) == 0 { // notification without payload: attributes only
			gen, _ := strconv.ParseInt(m.Attributes["objectGeneration"], 10, 64)
			obj = storageObject{Bucket: m.Attributes["bucketId"], Name: m.Attributes["objectId"], Generation: flexInt(gen)}
			return obj, true, validObject(obj)
		}
	default:
		return obj, false, derrors.Permanent(fmt.Errorf("event %s: unexpected type %q", e.ID(), e.Type()))
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return obj, false, derrors.Permanent(fmt.Errorf("event %s: decoding object: %w", e.ID(), err))
	}
	return obj, true, validObject(obj)
}

func validObject(o storageObject) error {
	if o.Bucket == "" || o.Name == "" || o.Generation <= 0 {
		return derrors.Permanent(fmt.Errorf("finalize event without bucket, name or generation: %+v", o))
	}
	return nil
}

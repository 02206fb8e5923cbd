package bench

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/verify"
)

// cloudFaults runs pass twice on the same emulators, each in its own
// project and bucket: fault-free, then with faults injected through the
// deployed function binary (startInjector):
//   - a shard function instance SIGKILLed at a random moment under a
//     delivery (half the fault rate of the deliveries; an instance serves one
//     delivery at a time, as infra's max_instance_request_concurrency = 1
//     has it) and replaced on its port, the Firestore transactions it left
//     open expiring after a fifteenth of the lease, as Firestore's 60 s idle
//     expiry is a fifteenth of the deployed 15-minute lease;
//   - duplicate deliveries: the message published again, a second
//     concurrent delivery, and Pub/Sub's redelivery after the ack deadline
//     (10 s, Pub/Sub's least) while the first delivery still works;
//   - zombies: a delivery answered 500, at once or, every other one, at a
//     timeout past the ack deadline, while a slow second instance keeps
//     working on it past its lease, then writes after the shard was claimed
//     again;
//   - storage errors (429, 503, connections reset before a request,
//     mid-body on reads, and after a write applied) through a proxy in
//     front of fake-gcs-server; ledger errors (commits answered ABORTED or
//     UNAVAILABLE, or applied with the answer lost) through a gRPC proxy in
//     front of the Firestore emulator;
//   - the planner killed while it plans and publishes, its event
//     redelivered.
//
// Both runs deliver the subscriptions through pushRelay (the emulator's own
// push loop stalls for minutes after a few failed pushes of a message). It
// prints the counts injected, both walls and where the fault run's time
// went (printTimeline), then verifies the fault run's corpus from storage
// alone (verify.Verify, deep) and compares every document's sha1 with the
// fault-free run's, by entry_id, ending with the line
//
//	verify: N rows, 0 lost, 0 duplicated, N documents equal
//
// and an error when anything is lost, duplicated, different or extra.
func cloudFaults(ctx context.Context, pass cloudPass, rate float64) error {
	pass.relay = true
	base := pass
	base.project = "bench-cloud-base"
	fmt.Println("fault-free run ...")
	ref, err := base.run(ctx)
	if err != nil {
		return err
	}
	ref.stopAll()
	ref.print(pass.shards)

	pass.project = "bench-cloud-faults"
	pass.faults = &faultPlan{rate: rate, seed: 51, lease: 4 * time.Second, zombieLatency: 2 * time.Second,
		ackDeadline: 10 * time.Second, zombieTimeout: 11 * time.Second, killRate: rate / 2, killWithin: 500 * time.Millisecond}
	pass.faults.txExpiry = pass.faults.lease / 15
	fmt.Printf("fault run (fault rate %.2f) ...\n", rate)
	res, err := pass.run(ctx)
	if err != nil {
		return err
	}
	defer res.stopAll()
	res.print(pass.shards)
	if err := res.printFaults(ref); err != nil {
		return err
	}
	res.printTimeline(ref)

	rep, err := verify.Verify(ctx, res.store, verify.Options{Out: res.out, Manifest: "gs://manifests/" + cloudManifest,
		ManifestGeneration: res.gen, RowGroupsPerShard: 1, RunID: res.runID, Ledger: res.shards, Deep: true})
	if err != nil {
		return err
	}
	lost, dup := int64(res.lost), int64(res.dup)
	var missing int64
	for _, m := range rep.Missing {
		missing += max(m.Rows, 0)
	}
	lost = max(lost, missing, rep.Rows-rep.Accounted)
	for i, m := range rep.Missing {
		if i < 5 {
			fmt.Printf("verify: missing shard %d (%s, %d rows; ledger %q)\n", m.Shard, m.Name, m.Rows, m.Ledger)
		}
	}
	for _, e := range rep.Extra {
		fmt.Printf("verify: extra %s (%s): %s\n", e.Name, e.Kind, e.Detail)
		if e.Kind == verify.ExtraSecondOutput {
			dup++
		}
	}
	for _, d := range rep.Disagrees {
		fmt.Printf("verify: %s (shard %d) disagrees on %s: %s\n", d.Name, d.Shard, d.Check, d.Detail)
	}
	equal, differ := 0, 0
	for id, sum := range ref.docs {
		switch got, ok := res.docs[id]; {
		case !ok:
		case got == sum:
			equal++
		default:
			differ++
			if differ <= 5 {
				fmt.Printf("verify: %s: document differs from the fault-free run's (sha1 %s, want %s)\n", id, got, sum)
			}
		}
	}
	fmt.Printf("verify: %d rows, %d lost, %d duplicated, %d documents equal\n", rep.Rows, lost, dup, equal)
	dead := res.counts[ledger.DeadLettered]
	if !rep.OK() || lost != 0 || dup != 0 || differ != 0 || equal != len(ref.docs) || len(res.docs) != len(ref.docs) ||
		int64(len(ref.docs)) != rep.Rows || dead != 0 || res.counts[ledger.Done] != int64(pass.shards) {
		return fmt.Errorf("bench cloud --faults: %d rows lost, %d duplicated, %d of %d documents equal (%d differ), %d dead-lettered, verify ok %v",
			lost, dup, equal, len(ref.docs), differ, dead, rep.OK())
	}
	return nil
}

// printFaults prints what the injector did, and the wall against the
// fault-free run's.
func (res *passResult) printFaults(ref *passResult) error {
	in := res.injected
	if in == nil {
		return fmt.Errorf("bench cloud --faults: no injector")
	}
	s, p := &in.storage, &in.push
	fmt.Printf("injected      %d SIGKILLs of the shard instance (%d mid-shard), each replaced on its port; planner killed mid-plan/publish %d\n",
		p.Kills.Load(), p.KillsMidShard.Load(), p.PlannerKills.Load())
	overlap, lost := int64(0), int64(0)
	if res.shardRelay != nil {
		overlap, lost = res.shardRelay.Overlapping.Load(), res.shardRelay.Lost.Load()
	}
	fmt.Printf("              duplicate deliveries: %d published twice, %d delivered twice concurrently, %d redelivered by Pub/Sub while the first delivery still worked (ack deadline %s)\n",
		p.Republished.Load(), p.Concurrent.Load(), overlap, in.plan.ackDeadline)
	if lost > 0 {
		fmt.Printf("              emulator: %d nacked messages it never delivered again, published again by the relay (see pushRelay)\n", lost)
	}
	fmt.Printf("              zombies: %d deliveries answered 500 while a slow instance kept working (%d ran past their lease, %d answered only at a %s timeout, past the ack deadline)\n",
		p.Zombies.Load(), p.ZombiesPastLease.Load(), p.ZombiesPastAck.Load(), in.plan.zombieTimeout)
	fmt.Printf("              storage: %d x 429, %d x 503, %d connections reset before the request, %d reset mid-body (reads), %d writes applied with the answer lost\n",
		s.TooMany.Load(), s.Unavailable.Load(), s.Reset.Load(), s.ResetMidBody.Load(), s.LostAnswer.Load())
	fmt.Printf("              ledger: %d commits ABORTED, %d UNAVAILABLE, %d applied with the answer lost (UNAVAILABLE); %d transactions left open by killed instances expired after %s\n",
		in.ledger.Aborted.Load(), in.ledger.Unavailable.Load(), in.ledger.LostAnswer.Load(), in.ledger.Expired.Load(), in.plan.txExpiry)
	fmt.Printf("wall          %s with faults, %s fault-free (%.2fx)\n", res.wall.Round(time.Millisecond), ref.wall.Round(time.Millisecond), res.wall.Seconds()/ref.wall.Seconds())
	return nil
}

// valueSHA1 is the hex sha1 of a document value's bytes.
func valueSHA1(v any) string {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	default:
		b = []byte(fmt.Sprint(x))
	}
	s := sha1.Sum(b)
	return hex.EncodeToString(s[:])
}

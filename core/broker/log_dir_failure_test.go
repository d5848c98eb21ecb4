package broker

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// TestMetadataOfShuttingDownAndFailedBrokers: as Kafka's KRaftMetadataCache
// answers, a broker in controlled shutdown is still listed and its
// replicas are not offline; a broker whose log dir failed is listed too
// (it is unfenced until it halts) but its replicas are offline; a fenced
// broker is not listed and its replicas are offline.
func TestMetadataOfShuttingDownAndFailedBrokers(t *testing.T) {
	b, err := clusteredBroker(t, oldStorage(t, "x", cluster.UUID{1}), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	im := imageOf("quorumID", cluster.UUID{1})
	for id := int32(1); id <= 4; id++ {
		im.Brokers[id] = &cluster.Broker{ID: id, Epoch: 5, Host: "h", Port: 9000 + id}
	}
	im.Brokers[2].InControlledShutdown = true
	im.Brokers[3].LogDirOffline = true
	im.Brokers[4].Fenced = true
	im.Topics["orders"].Partitions[0] = &cluster.Partition{Replicas: []int32{1, 2, 3, 4}, ISR: []int32{1}, Leader: 1}
	if err := b.ApplyMetadata(1000, im); err != nil {
		t.Fatal(err)
	}
	resp := handleMetadata(b, &Request{Msg: kmsg.NewPtrMetadataRequest()}).(*kmsg.MetadataResponse)
	var listed []int32
	for _, br := range resp.Brokers {
		listed = append(listed, br.NodeID)
	}
	if !slices.Equal(listed, []int32{1, 2, 3}) {
		t.Errorf("brokers listed: %v, want [1 2 3]", listed)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("topics: %+v", resp.Topics)
	}
	if off := resp.Topics[0].Partitions[0].OfflineReplicas; !slices.Equal(off, []int32{3, 4}) {
		t.Errorf("offline replicas: %v, want [3 4]", off)
	}
}

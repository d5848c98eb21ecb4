package cluster

import (
	"fmt"
	"slices"
	"testing"
)

func rackImage(racks map[int32]string) *Image {
	im := NewImage()
	for id, r := range racks {
		im.Brokers[id] = &Broker{ID: id, Rack: r}
	}
	return im
}

// TestArrangeAlternatesRacks: Kafka's own example (AdminUtils): rack1
// holds 0 and 5, rack2 3 and 4, rack3 1 and 2; the order is 0 3 1 5 4 2.
func TestArrangeAlternatesRacks(t *testing.T) {
	im := rackImage(map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"})
	order, _ := im.arrange([]int32{0, 1, 2, 3, 4, 5})
	if want := []int32{0, 3, 1, 5, 4, 2}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// TestPlaceOnSpreadsRacks: every partition's replicas are distinct brokers
// on min(rf, racks) racks, leaders are spread evenly, whatever the start;
// without racks placement is Place's.
func TestPlaceOnSpreadsRacks(t *testing.T) {
	racks := map[int32]string{1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c", 7: "a"}
	im := rackImage(racks)
	brokers := im.BrokerIDs()
	for _, rf := range []int{1, 2, 3, 4} {
		for start := range len(brokers) {
			parts := im.PlaceOn(brokers, start, 0, 14, rf)
			leaders := map[int32]int{}
			for i, reps := range parts {
				on := map[string]bool{}
				for j, b := range reps {
					if slices.Contains(reps[:j], b) {
						t.Fatalf("rf %d start %d partition %d: %v repeats b%d", rf, start, i, reps, b)
					}
					on[racks[b]] = true
				}
				if len(reps) != rf || len(on) != min(rf, 3) {
					t.Fatalf("rf %d start %d partition %d: %v on racks %v", rf, start, i, reps, on)
				}
				leaders[reps[0]]++
			}
			for _, b := range brokers {
				if leaders[b] != 2 {
					t.Fatalf("rf %d start %d: b%d leads %d of 14 partitions, want 2", rf, start, b, leaders[b])
				}
			}
		}
	}
	plain := rackImage(map[int32]string{1: "", 2: "", 3: ""})
	if got, want := fmt.Sprint(plain.PlaceOn([]int32{1, 2, 3}, 1, 0, 3, 2)), fmt.Sprint(Place([]int32{1, 2, 3}, 1, 0, 3, 2)); got != want {
		t.Fatalf("without racks: %s, want Place's %s", got, want)
	}
}

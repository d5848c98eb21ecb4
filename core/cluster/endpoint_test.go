package cluster

import "testing"

// TestEndpoints: a registration's listeners survive the metadata log's
// encoding and reach the image and its clones; a broker answers for a
// listener it lacks with its first endpoint.
func TestEndpoints(t *testing.T) {
	reg := &RegisterBroker{ID: 1, Host: "10.0.0.1", Port: 9092, Endpoints: []Endpoint{
		{Name: "INTERNAL", Host: "10.0.0.1", Port: 9092}, {Name: "EXTERNAL", Host: "kafka.example", Port: 19092}}}
	b, err := DecodeBatch(EncodeBatch(&Batch{Records: []Record{{RegisterBroker: reg}}}))
	if err != nil {
		t.Fatal(err)
	}
	im := NewImage()
	if errs, _ := im.Apply(1, b); errs[0] != nil {
		t.Fatal(errs[0])
	}
	c := im.Clone()
	im.Brokers[1].Endpoints[1].Host = "changed"
	br := c.Brokers[1]
	for _, tc := range []struct {
		listener string
		host     string
		port     int32
	}{{"EXTERNAL", "kafka.example", 19092}, {"INTERNAL", "10.0.0.1", 9092}, {"SSL", "10.0.0.1", 9092}} {
		if h, p := br.Endpoint(tc.listener); h != tc.host || p != tc.port {
			t.Errorf("Endpoint(%s) = %s:%d, want %s:%d", tc.listener, h, p, tc.host, tc.port)
		}
	}
}

package server

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseListeners(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    ListenerSettings
		want []Listener
		ctl  Listener
		err  string // a part of the error, "" for none
	}{
		{name: "kafka-addr alone", want: []Listener{{Name: "PLAINTEXT", Protocol: Plaintext, Addr: "127.0.0.1:9092"}}},
		{name: "two with advertised",
			s: ListenerSettings{Listeners: "PLAINTEXT://:9092, SSL://0.0.0.0:9093", Advertised: "SSL://kafka.example:19093"},
			want: []Listener{{Name: "PLAINTEXT", Protocol: Plaintext, Addr: ":9092"},
				{Name: "SSL", Protocol: SSL, Addr: "0.0.0.0:9093", Advertised: "kafka.example:19093"}}},
		{name: "custom names and a controller",
			s: ListenerSettings{Listeners: "CLIENT://[::1]:9092,CONTROLLER://127.0.0.1:9192", ProtocolMap: "CLIENT:SSL,CONTROLLER:PLAINTEXT",
				ControllerListeners: "CONTROLLER", InterBrokerListener: "CLIENT"},
			want: []Listener{{Name: "CLIENT", Protocol: SSL, Addr: "[::1]:9092"}}, ctl: Listener{Name: "CONTROLLER", Protocol: Plaintext, Addr: "127.0.0.1:9192"}},
		{name: "name without protocol", s: ListenerSettings{Listeners: "EXTERNAL://:9092"}, err: "EXTERNAL has no security protocol"},
		{name: "unknown protocol", s: ListenerSettings{Listeners: "A://:1", ProtocolMap: "A:TLS"}, err: "want NAME:PROTOCOL"},
		{name: "lower-case name", s: ListenerSettings{Listeners: "plaintext://:9092"}, err: "upper-case NAME"},
		{name: "no port", s: ListenerSettings{Listeners: "PLAINTEXT://localhost"}, err: "missing port"},
		{name: "same port twice", s: ListenerSettings{Listeners: "PLAINTEXT://:9092,SSL://127.0.0.1:9092"}, err: "both use port 9092"},
		{name: "same name twice", s: ListenerSettings{Listeners: "PLAINTEXT://:9092,PLAINTEXT://:9093"}, err: "given twice"},
		{name: "advertised unknown", s: ListenerSettings{Advertised: "SSL://h:1"}, err: "SSL is not one of listeners"},
		{name: "advertised port 0", s: ListenerSettings{Advertised: "PLAINTEXT://h:0"}, err: "cannot be 0"},
		{name: "inter-broker unknown", s: ListenerSettings{InterBrokerListener: "REPLICATION"}, err: "REPLICATION is not one of listeners"},
		{name: "only a controller", s: ListenerSettings{Listeners: "CONTROLLER://:9192", ProtocolMap: "CONTROLLER:PLAINTEXT", ControllerListeners: "CONTROLLER"}, err: "no listener for clients"},
		{name: "TLS controller", s: ListenerSettings{Listeners: "PLAINTEXT://:9092,CONTROLLER://:9192", ProtocolMap: "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL", ControllerListeners: "CONTROLLER"},
			want: []Listener{{Name: "PLAINTEXT", Protocol: Plaintext, Addr: ":9092"}}, ctl: Listener{Name: "CONTROLLER", Protocol: SSL, Addr: ":9192"}},
		{name: "SASL controller", s: ListenerSettings{Listeners: "PLAINTEXT://:9092,CONTROLLER://:9192", ProtocolMap: "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_SSL", ControllerListeners: "CONTROLLER"},
			want: []Listener{{Name: "PLAINTEXT", Protocol: Plaintext, Addr: ":9092"}}, ctl: Listener{Name: "CONTROLLER", Protocol: SASLSSL, Addr: ":9192"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ctl, err := ParseListeners(tc.s, "127.0.0.1:9092")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) || ctl != tc.ctl {
				t.Errorf("got %+v and controller %+v, want %+v and %+v", got, ctl, tc.want, tc.ctl)
			}
		})
	}
}

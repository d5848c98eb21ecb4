package broker

import (
	"errors"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// DescribeUserScramCredentials v0 and AlterUserScramCredentials v0
// (KIP-554). The credentials live in the metadata (core/cluster
// scram.go): a single broker keeps the records in its metadata file, a
// cluster in the metadata log, where the controller writes them
// (AlterUserScramCredentials is forwarded to it, KIP-590) and every
// broker reads them from its image.

// ScramCredential is user's credential for a mechanism, nil if none.
func (b *Broker) ScramCredential(user string, mech int8) *cluster.ScramCredential {
	return b.image.scram()[cluster.ScramKey(user, mech)]
}

// BootstrapScram adds a credential to a single broker's metadata unless
// the user already has one of that mechanism (Kafka's kafka-storage
// format --add-scram): the first user of a broker whose listeners all
// need SASL. It reports whether it added the credential.
func (b *Broker) BootstrapScram(c *cluster.ScramCredential) (bool, error) {
	if b.cl != nil {
		return false, errors.New("broker: SCRAM bootstrap is for a single broker; in a cluster use AlterUserScramCredentials")
	}
	if b.ScramCredential(c.Name, c.Mechanism) != nil {
		return false, nil
	}
	if b.meta.Scram == nil {
		b.meta.Scram = map[string]*cluster.ScramCredential{}
	}
	cluster.ApplyScram(b.meta.Scram, &cluster.Record{ScramCredential: c})
	return true, b.saveMetadata()
}

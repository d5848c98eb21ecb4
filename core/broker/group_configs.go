package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
)

// Group configs: the GROUP config resource (type 32) of KIP-848 and
// KIP-932, a group's own consumer.session.timeout.ms,
// share.auto.offset.reset, share.record.lock.duration.ms and the like
// (config.GroupDefs), set with IncrementalAlterConfigs or AlterConfigs
// and read with DescribeConfigs.
//
// # Invariants
//
//   - A group's configs live where topics' do: in the metadata file of a
//     single broker, in the metadata log of a cluster (ConfigRecord with a
//     group; the controller checks and writes them, every broker reads
//     them from its image). The group need not exist.
//   - A group's own value wins over its broker synonym, which wins over
//     the default; the coordinators look them up at each use
//     (groupInt64), so a change applies to the next heartbeat, the next
//     acquisition and the next share-partition initialization.

// emptyGroupName is Kafka's message for a GROUP resource with no name.
var emptyGroupName = "Group name must not be empty"

// groupInt64 resolves a numeric group config of a group.
func (b *Broker) groupInt64(id, name string) int64 {
	return b.cfg.Settings.GroupInt64(b.image.groupConfigs(id), name)
}

// groupValue resolves a group config of a group.
func (b *Broker) groupValue(id, name string) string {
	v, _, _ := b.cfg.Settings.Group(b.image.groupConfigs(id), name)
	return v
}

// alterGroupConfigs alters a group's configs on a single broker (in a
// cluster the controller does, quorum's groupConfigRecords).
func (b *Broker) alterGroupConfigs(rr *kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) *kafkaError {
	if rr.ResourceName == "" {
		return errorf(kerr.InvalidRequest, "%s", emptyGroupName)
	}
	next, aerr := b.cfg.Settings.AlterGroup(b.image.groupConfigs(rr.ResourceName), rr.Configs)
	if aerr != nil {
		return errorf(aerr.Kind, "%s", aerr.Msg)
	}
	if validateOnly {
		return nil
	}
	b.setGroupConfigs(rr.ResourceName, next)
	if err := b.saveMetadata(); err != nil {
		return errorf(kerr.KafkaStorageError, "%v", err)
	}
	return nil
}

// setGroupConfigs replaces a group's configs on a single broker; none
// removes the group's entry.
func (b *Broker) setGroupConfigs(id string, cfg map[string]string) {
	if len(cfg) == 0 {
		delete(b.meta.GroupConfigs, id)
		return
	}
	if b.meta.GroupConfigs == nil {
		b.meta.GroupConfigs = map[string]map[string]string{}
	}
	b.meta.GroupConfigs[id] = cfg
}

// groupConfigs resolves every group config for a group's overrides, with
// Kafka's synonyms: the group's value (GROUP_CONFIG), then its broker
// synonym, then the default.
func (b *Broker) groupConfigs(overrides map[string]string, names []string, synonyms, docs bool) []describedConfig {
	return resolveAll(config.GroupDefs(), func(name string) (string, config.Source, []config.Synonym) {
		return b.cfg.Settings.Group(overrides, name)
	}, names, synonyms, docs)
}

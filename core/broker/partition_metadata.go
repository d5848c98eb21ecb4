package broker

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/store"
)

// A clustered broker writes partition.metadata into each partition
// directory, as Kafka does (KIP-516): the id of the topic the log belongs
// to. A topic deleted and created again under the same name gets a new
// id, and a directory of the old topic can outlive it when the broker
// stops between applying the removal and deleting its logs. Such a
// directory is a stray:
//
//   - opening a replica into a directory that names another topic id
//     first empties it, so the new topic never serves the old one's
//     records;
//   - once the broker is registered and unfenced (its image then holds
//     everything committed before it started), directories that name a
//     topic id the broker does not replicate are deleted, as Kafka's
//     LogManager deletes stray replicas after its first metadata image.
//
// Directories without the file (the metadata log's own, or logs written
// before it existed) are never touched.

const partitionMetadataFile = "partition.metadata"

// readTopicID reads a partition directory's topic id; ok is false when
// the directory has no partition.metadata.
func readTopicID(st store.Storage, dir string) (id cluster.UUID, ok bool, err error) {
	raw, err := st.ReadFile(path.Join(dir, partitionMetadataFile))
	if errors.Is(err, store.ErrNotExist) {
		return id, false, nil
	}
	if err != nil {
		return id, false, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, found := strings.Cut(line, ":"); found && strings.TrimSpace(k) == "topic_id" {
			if err := id.UnmarshalText([]byte(strings.TrimSpace(v))); err != nil {
				return id, false, fmt.Errorf("%s/%s: %w", dir, partitionMetadataFile, err)
			}
			return id, true, nil
		}
	}
	return id, false, fmt.Errorf("%s/%s: no topic_id", dir, partitionMetadataFile)
}

// claimPartitionDir makes dir the directory of a replica of topic id:
// a directory left by another topic of the same name is emptied first,
// and the id is written when missing.
func (b *Broker) claimPartitionDir(dir string, id cluster.UUID) error {
	have, ok, err := readTopicID(b.st, dir)
	if err != nil {
		return err
	}
	if ok && have == id {
		return nil
	}
	if ok {
		if err := b.st.RemoveAll(dir); err != nil {
			return err
		}
		b.cfg.Logf("%s: removed the stray log of an older topic of that name (id %s)", dir, have)
	}
	if err := b.st.MkdirAll(dir); err != nil {
		return err
	}
	return b.st.WriteFile(path.Join(dir, partitionMetadataFile), []byte("version: 0\ntopic_id: "+id.String()+"\n"))
}

// removeStrayLogs deletes the partition directories that name a topic id
// this broker does not replicate: topics removed while it was down, or
// before it could delete them.
func (b *Broker) removeStrayLogs() error {
	names, err := b.st.List("")
	if err != nil {
		return err
	}
	var firstErr error
	for _, dir := range names {
		i := strings.LastIndexByte(dir, '-')
		if i <= 0 {
			continue
		}
		idx, err := strconv.Atoi(dir[i+1:])
		if err != nil {
			continue
		}
		id, ok, err := readTopicID(b.st, dir)
		if err != nil || !ok {
			continue
		}
		if t := b.topics[dir[:i]]; t != nil && t.ID == [16]byte(id) && idx < len(t.Partitions) {
			continue
		}
		if err := b.st.RemoveAll(dir); err != nil && firstErr == nil {
			firstErr = err
		}
		b.cfg.Logf("%s: removed the stray log of a deleted topic (id %s)", dir, id)
	}
	return firstErr
}

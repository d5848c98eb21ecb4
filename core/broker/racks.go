package broker

// ownRack is this broker's broker.rack (KIP-36), "" for none.
func (b *Broker) ownRack() string {
	rack, _ := b.cfg.Settings.Value("broker.rack")
	return rack
}

// rackField is a rack as Metadata and DescribeCluster carry it: null for
// none.
func rackField(rack string) *string {
	if rack == "" {
		return nil
	}
	return &rack
}

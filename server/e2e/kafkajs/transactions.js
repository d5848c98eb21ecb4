// kafkajs transactions against the broker under test (see
// transactions_test.go): one transaction with two records and
// sendOffsets that commits, one that aborts; prints the group's offset.
// Usage: node transactions.js BROKER IN OUT GROUP TRANSACTIONAL_ID
const { Kafka, logLevel } = require('kafkajs')

const [broker, inTopic, outTopic, group, txnID] = process.argv.slice(2)

async function main() {
  const kafka = new Kafka({ brokers: [broker], clientId: 'gregor-e2e-txn', logLevel: logLevel.ERROR })
  const producer = kafka.producer({ transactionalId: txnID, idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()

  let txn = await producer.transaction()
  await txn.send({ topic: outTopic, messages: [{ value: 'c1' }, { value: 'c2' }] })
  await txn.sendOffsets({ consumerGroupId: group, topics: [{ topic: inTopic, partitions: [{ partition: 0, offset: '2' }] }] })
  await txn.commit()

  txn = await producer.transaction()
  await txn.send({ topic: outTopic, messages: [{ value: 'a1' }] })
  await txn.sendOffsets({ consumerGroupId: group, topics: [{ topic: inTopic, partitions: [{ partition: 0, offset: '5' }] }] })
  await txn.abort()
  await producer.disconnect()

  const admin = kafka.admin()
  await admin.connect()
  const offsets = await admin.fetchOffsets({ groupId: group, topics: [inTopic] })
  await admin.disconnect()
  const p0 = offsets[0].partitions.find((p) => p.partition === 0)
  console.log(JSON.stringify({ offset: p0 ? p0.offset : null }))
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})

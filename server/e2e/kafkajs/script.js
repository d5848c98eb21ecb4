// kafkajs against a broker: run by server/e2e/kafkajs_test.go as
//
//   node script.js BROKER TOPIC BASE_TIMESTAMP_MS [GROUP_ID]
//
// It performs admin, produce and (with GROUP_ID) consume operations and
// prints one JSON object with what the broker answered on stdout. The Go test
// makes the assertions; this script only reports facts. It exits non-zero if
// an operation that must succeed throws. kafkajs's own logs go to stderr.
'use strict'

const { Kafka, logLevel, CompressionTypes, Partitioners } = require('kafkajs')

const [broker, topic, baseArg, groupId] = process.argv.slice(2)
if (!broker || !topic || !baseArg) {
  console.error('usage: node script.js BROKER TOPIC BASE_TIMESTAMP_MS [GROUP_ID]')
  process.exit(2)
}
const base = Number(baseArg)

const kafka = new Kafka({
  clientId: 'gregor-e2e-kafkajs',
  brokers: [broker],
  connectionTimeout: 5000,
  requestTimeout: 15000,
  retry: { retries: 5, initialRetryTime: 100 },
  logLevel: logLevel.WARN,
  logCreator: () => ({ namespace, level, label, log }) => {
    process.stderr.write(`[kafkajs ${label} ${namespace}] ${JSON.stringify(log)}\n`)
  }
})

// errInfo keeps what identifies a Kafka error: kafkajs's type is Kafka's
// error name (INVALID_PARTITIONS, ...).
function errInfo (e) {
  if (!e) return null
  const inner = Array.isArray(e.errors) && e.errors.length ? e.errors[0] : e
  return { name: e.name, type: inner.type || e.type || null, code: inner.code ?? e.code ?? null, message: e.message }
}

async function main () {
  const out = {}
  const admin = kafka.admin()
  await admin.connect()

  out.created = await admin.createTopics({
    waitForLeaders: true,
    topics: [{
      topic,
      numPartitions: 2,
      replicationFactor: 1,
      configEntries: [{ name: 'retention.ms', value: '600000' }]
    }]
  })
  // kafkajs answers false for a topic that already exists.
  out.createdAgain = await admin.createTopics({ waitForLeaders: false, topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
  const dry = topic + '-validate-only'
  out.validateOnly = await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: dry, numPartitions: 1, replicationFactor: 1 }] })
  const listed = await admin.listTopics()
  out.listedTopic = listed.includes(topic)
  out.listedValidateOnly = listed.includes(dry)

  const md = await admin.fetchTopicMetadata({ topics: [topic] })
  out.metadata = md.topics.map(t => ({
    name: t.name,
    partitions: t.partitions
      .map(p => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr, error: p.partitionErrorCode }))
      .sort((a, b) => a.partition - b.partition)
  }))

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
  await producer.connect()
  out.sends = []
  // 2 x 10 records per partition: one plain send, one gzip send (the only
  // codec kafkajs ships), each with acks=-1, explicit timestamps.
  for (const [i, compression] of [[0, CompressionTypes.None], [1, CompressionTypes.GZIP]]) {
    const messages = []
    for (let j = 0; j < 20; j++) {
      const n = i * 20 + j
      messages.push({
        partition: n % 2,
        key: `key-${n}`,
        value: `kafkajs record ${n}`,
        timestamp: String(base + n * 1000),
        headers: { n: String(n) }
      })
    }
    const res = await producer.send({ topic, acks: -1, compression, messages })
    for (const r of res) out.sends.push({ partition: r.partition, errorCode: r.errorCode, baseOffset: r.baseOffset })
  }
  await producer.disconnect()

  out.offsets = (await admin.fetchTopicOffsets(topic))
    .map(o => ({ partition: o.partition, low: o.low, high: o.high, offset: o.offset }))
    .sort((a, b) => a.partition - b.partition)
  // Record n has timestamp base + n s and sits on partition n%2 at offset
  // floor(n/2) % 10 + 10*(n>=20). base + 7.5 s: the first at or after it on
  // partition 0 is record 8 (offset 4), on partition 1 record 9 (offset 4).
  out.byTimestamp = (await admin.fetchTopicOffsetsByTimestamp(topic, base + 7500))
    .map(o => ({ partition: o.partition, offset: o.offset }))
    .sort((a, b) => a.partition - b.partition)

  await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] })
  try {
    await admin.createPartitions({ topicPartitions: [{ topic, count: 1 }] })
    out.shrinkError = null
  } catch (e) {
    out.shrinkError = errInfo(e)
  }
  const md2 = await admin.fetchTopicMetadata({ topics: [topic] })
  out.partitionsAfterGrow = md2.topics[0].partitions.length

  // ---- consumer-group dependent part ----------------------------------
  // kafkajs has no group-less consumer. This part runs only when the Go test
  // passes a GROUP_ID, i.e. once the broker has a group coordinator.
  if (groupId) {
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000 })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    out.consumed = []
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${out.consumed.length} of 40 before the deadline`)), 30000)
      consumer.run({
        eachMessage: async ({ partition, message }) => {
          out.consumed.push({
            partition,
            offset: message.offset,
            key: message.key.toString(),
            value: message.value.toString(),
            timestamp: message.timestamp
          })
          if (out.consumed.length >= 40) {
            clearTimeout(timer)
            resolve()
          }
        }
      }).catch(reject)
    })
    await consumer.disconnect()
  }
  // ----------------------------------------------------------------------

  // Delete a topic of its own, so the Go test can still read TOPIC back.
  const doomed = topic + '-deleted'
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: doomed, numPartitions: 1, replicationFactor: 1 }] })
  out.listedBeforeDelete = (await admin.listTopics()).includes(doomed)
  await admin.deleteTopics({ topics: [doomed], timeout: 10000 })
  out.listedAfterDelete = (await admin.listTopics()).includes(doomed)
  await admin.disconnect()
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch(e => {
  console.error('kafkajs script failed:', e && e.stack ? e.stack : e)
  process.exit(1)
})

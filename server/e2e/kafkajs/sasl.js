// kafkajs with SASL against the broker under test (see sasl_test.go):
// produces one record and reads it back with each mechanism, then tries a
// wrong password. Prints what happened as JSON.
// Usage: node sasl.js BROKER TOPIC USER PASSWORD
const { Kafka, logLevel } = require('kafkajs')

const [broker, topic, username, password] = process.argv.slice(2)

async function roundTrip(mechanism, pass) {
  const kafka = new Kafka({
    brokers: [broker], clientId: 'gregor-e2e-sasl', logLevel: logLevel.NOTHING,
    sasl: { mechanism, username, password: pass }, retry: { retries: 0 },
  })
  const producer = kafka.producer()
  try {
    await producer.connect()
    const value = `${mechanism}-${Date.now()}`
    const [sent] = await producer.send({ topic, messages: [{ value }] })
    await producer.disconnect()
    const admin = kafka.admin()
    await admin.connect()
    const offsets = await admin.fetchTopicOffsets(topic)
    await admin.disconnect()
    return { ok: true, offset: sent.baseOffset, high: offsets[0].high }
  } catch (e) {
    await producer.disconnect().catch(() => {})
    return { ok: false, error: e.type || e.name, message: e.message }
  }
}

async function main() {
  const out = {}
  for (const m of ['plain', 'scram-sha-256']) {
    out[m] = await roundTrip(m, password)
  }
  out.wrong = await roundTrip('scram-sha-256', password + '-wrong')
  console.log(JSON.stringify(out))
}

main().catch((e) => { console.error(e); process.exit(1) })

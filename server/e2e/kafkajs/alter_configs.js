// kafkajs's admin.alterConfigs (the legacy AlterConfigs API, key 33)
// against a broker: run by server/e2e/alter_configs_test.go as
//
//   node alter_configs.js BROKER TOPIC
//
// The topic must exist with retention.ms set. It validates a change,
// makes it, tries an unknown config, and prints one JSON object with
// what describeConfigs reported after each step; the Go test makes the
// assertions.
'use strict'

const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs')

const [broker, topic] = process.argv.slice(2)
if (!broker || !topic) {
  console.error('usage: node alter_configs.js BROKER TOPIC')
  process.exit(2)
}

const kafka = new Kafka({
  clientId: 'gregor-e2e-kafkajs-admin',
  brokers: [broker],
  retry: { retries: 2, initialRetryTime: 100 },
  logLevel: logLevel.NOTHING
})

async function main () {
  const admin = kafka.admin()
  await admin.connect()
  const describe = async () => {
    const r = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'segment.bytes'] }],
      includeSynonyms: false
    })
    const out = {}
    for (const e of r.resources[0].configEntries) out[e.configName] = e.configValue
    return out
  }
  const alter = (validateOnly, entries) => admin.alterConfigs({
    validateOnly,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: entries }]
  })
  const res = { before: await describe() }
  await alter(true, [{ name: 'segment.bytes', value: '2097152' }])
  res.afterValidate = await describe()
  await alter(false, [{ name: 'segment.bytes', value: '2097152' }])
  res.afterAlter = await describe()
  try {
    await alter(false, [{ name: 'no.such.config', value: '1' }])
    res.unknownError = null
  } catch (e) {
    res.unknownError = e.type || e.name
  }
  res.afterUnknown = await describe()
  await admin.disconnect()
  process.stdout.write(JSON.stringify(res) + '\n')
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})

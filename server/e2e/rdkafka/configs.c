/*
 * configs.c: what Debian's librdkafka does with broker configs and with
 * a compacted topic, for server/e2e/rdkafka_test.go.
 *
 *   configs BOOTSTRAP NODE_ID COMPACTED_TOPIC
 *
 * Prints one line per result:
 *   alter NAME=VALUE ERRNAME ERRSTR        AlterConfigs of broker NODE_ID
 *   describe NAME VALUE|(null) ro=0|1 sensitive=0|1 source=N
 *   describe-count N                       configs DescribeConfigs listed
 *   produce KEYED|MIXED ok=N INVALID_RECORD=N other=N keyless_ok=N
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ok, invalid, other, keyless_ok;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
	if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
		ok++;
		keyless_ok += m->key == NULL;
	}
	else if (m->err == RD_KAFKA_RESP_ERR_INVALID_RECORD)
		invalid++;
	else
		other++;
}

static rd_kafka_t *client(const char *bootstrap) {
	char err[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) ||
	    rd_kafka_conf_set(conf, "linger.ms", "200", err, sizeof err) ||
	    rd_kafka_conf_set(conf, "retries", "0", err, sizeof err)) {
		fprintf(stderr, "conf: %s\n", err);
		exit(2);
	}
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
	if (!rk) {
		fprintf(stderr, "rd_kafka_new: %s\n", err);
		exit(2);
	}
	return rk;
}

/* wait returns the next admin result of type want on q, or exits. */
static rd_kafka_event_t *wait(rd_kafka_queue_t *q, rd_kafka_event_type_t want) {
	rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 20000);
	if (!ev || rd_kafka_event_type(ev) != want || rd_kafka_event_error(ev)) {
		fprintf(stderr, "admin request: %s\n", ev ? rd_kafka_event_error_string(ev) : "timed out");
		exit(2);
	}
	return ev;
}

static void alter(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *node, const char *name, const char *value) {
	rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, node);
	rd_kafka_ConfigResource_set_config(res, name, value);
	rd_kafka_AlterConfigs(rk, &res, 1, NULL, q);
	rd_kafka_event_t *ev = wait(q, RD_KAFKA_EVENT_ALTERCONFIGS_RESULT);
	size_t n;
	const rd_kafka_ConfigResource_t **out =
	    rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev), &n);
	rd_kafka_resp_err_t err = n ? rd_kafka_ConfigResource_error(out[0]) : RD_KAFKA_RESP_ERR__FAIL;
	const char *msg = n ? rd_kafka_ConfigResource_error_string(out[0]) : "no resource";
	printf("alter %s=%s %s %s\n", name, value, rd_kafka_err2name(err), msg ? msg : "");
	rd_kafka_event_destroy(ev);
	rd_kafka_ConfigResource_destroy(res);
}

static void describe(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *node, const char **names) {
	rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, node);
	rd_kafka_DescribeConfigs(rk, &res, 1, NULL, q);
	rd_kafka_event_t *ev = wait(q, RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT);
	size_t n, cnt;
	const rd_kafka_ConfigResource_t **out =
	    rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n);
	if (n != 1 || rd_kafka_ConfigResource_error(out[0])) {
		fprintf(stderr, "describe: %s\n", n ? rd_kafka_ConfigResource_error_string(out[0]) : "no resource");
		exit(2);
	}
	const rd_kafka_ConfigEntry_t **entries = rd_kafka_ConfigResource_configs(out[0], &cnt);
	printf("describe-count %zu\n", cnt);
	for (size_t i = 0; i < cnt; i++) {
		const char *name = rd_kafka_ConfigEntry_name(entries[i]);
		for (const char **w = names; *w; w++) {
			if (strcmp(*w, name) != 0)
				continue;
			const char *v = rd_kafka_ConfigEntry_value(entries[i]);
			printf("describe %s %s ro=%d sensitive=%d source=%d\n", name, v ? v : "(null)",
			       rd_kafka_ConfigEntry_is_read_only(entries[i]), rd_kafka_ConfigEntry_is_sensitive(entries[i]),
			       (int)rd_kafka_ConfigEntry_source(entries[i]));
		}
	}
	rd_kafka_event_destroy(ev);
	rd_kafka_ConfigResource_destroy(res);
}

/* produce sends ten records in one batch, every other one without a key
 * when mixed, and waits for their delivery reports. */
static void produce(rd_kafka_t *rk, const char *topic, int mixed) {
	ok = invalid = other = keyless_ok = 0;
	for (int i = 0; i < 10; i++) {
		char key[16], value[16];
		snprintf(key, sizeof key, "k%d", i);
		snprintf(value, sizeof value, "v%d", i);
		int keyless = mixed && i % 2 == 1;
		rd_kafka_resp_err_t err = rd_kafka_producev(
		    rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
		    RD_KAFKA_V_KEY(keyless ? NULL : key, keyless ? 0 : strlen(key)),
		    RD_KAFKA_V_VALUE(value, strlen(value)), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
		if (err) {
			fprintf(stderr, "producev: %s\n", rd_kafka_err2str(err));
			exit(2);
		}
	}
	rd_kafka_flush(rk, 20000);
	printf("produce %s ok=%d INVALID_RECORD=%d other=%d keyless_ok=%d\n", mixed ? "MIXED" : "KEYED", ok, invalid,
	       other, keyless_ok);
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: configs BOOTSTRAP NODE_ID COMPACTED_TOPIC\n");
		return 2;
	}
	rd_kafka_t *rk = client(argv[1]);
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	alter(rk, q, argv[2], "sasl.kerberos.min.time.before.relogin", "58000");
	alter(rk, q, argv[2], "log.dirs", "/elsewhere");
	alter(rk, q, argv[2], "num.io.threads", "0");
	const char *names[] = {"sasl.kerberos.min.time.before.relogin", "log.dirs", "ssl.keystore.password",
			       "num.partitions", NULL};
	describe(rk, q, argv[2], names);
	produce(rk, argv[3], 1);
	produce(rk, argv[3], 0);
	rd_kafka_queue_destroy(q);
	rd_kafka_destroy(rk);
	return 0;
}

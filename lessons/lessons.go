package lessons

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
)

// Meta names a lesson. Headings holds its Title and About in other
// languages, by the same tags as narration (Translations); a lesson
// translated into a language has its heading in it too (TestNarration).
type Meta struct {
	Slug     string
	Title    string
	About    string
	Headings map[string]Heading
}

// Heading is a lesson's title and one-line summary in one language.
type Heading struct{ Title, About string }

// zh is a lesson's Chinese heading, for Catalog.
func zh(title, about string) map[string]Heading {
	return map[string]Heading{"zh": {title, about}}
}

// Catalog is every lesson, in teaching order.
var Catalog = []Meta{
	{"segments", "Segments and indexes", "How a partition's log is cut into segments, and how sparse indexes find an offset or a time.",
		zh("日志段与索引", "分区的日志如何切分成日志段，稀疏索引又如何按 offset 或时间找到消息。")},
	{"sparse-index", "The sparse index", "One index entry per log.index.interval.bytes: a binary search, then a short scan.",
		zh("稀疏索引", "每 log.index.interval.bytes 字节一条索引：先二分查找，再短距离顺序扫描。")},
	{"retention", "Retention by size and by time", "retention.bytes beside retention.ms: whole segments go, the log start offset moves, the active segment stays.",
		zh("按大小和时间保留", "retention.bytes 与 retention.ms：删除整个日志段，日志起始 offset 前移，活跃段始终保留。")},
	{"log-compaction", "Log compaction", "cleanup.policy=compact keeps the latest record of each key: the cleaner, tombstones and delete.retention.ms, offsets with gaps.",
		zh("日志压缩", "cleanup.policy=compact 为每个 key 保留最新的一条记录：清理器、墓碑消息与 delete.retention.ms，以及留有空隙的 offset。")},
	{"partitioning", "Partitioning", "Keys hash to partitions; order holds only within one; partitions never shrink.",
		zh("分区", "key 经哈希落到分区；顺序只在单个分区内成立；分区数只增不减。")},
	{"sticky-partitioner", "Records without a key", "The sticky partitioner: a batch's worth of keyless records to one partition, then another (KIP-480, KIP-794).",
		zh("没有 key 的消息", "粘性分区器：无 key 的消息先凑满一个分区的一个批次，再换分区（KIP-480、KIP-794）。")},
	{"delivery-semantics", "Delivery semantics", "At most once, at least once and exactly once through one lost acknowledgement.",
		zh("消息传递语义", "同样丢失一次确认，看至多一次、至少一次和精确一次各自的结果。")},
	{"idempotent-producer", "The idempotent producer", "Producer ids and sequence numbers turn a retry into a dropped duplicate.",
		zh("幂等生产者", "producer id 和序列号让一次重试变成被丢弃的重复消息。")},
	{"idempotence-limits", "The limits of idempotence", "Per partition and per producer session only: a restarted producer's retry is stored twice.",
		zh("幂等的局限", "只在单分区、单个生产者会话内有效：重启后的生产者重发的消息会被存两份。")},
	{"transactions", "Transactions", "Every request from InitProducerId to COMPLETE_COMMIT.",
		zh("事务", "从 InitProducerId 到 COMPLETE_COMMIT 的每一个请求。")},
	{"read-committed", "Read committed", "The last stable offset and aborted data filtered.",
		zh("读已提交", "LSO（最后稳定偏移量），以及被中止的数据如何被过滤。")},
	{"zombie-fencing", "Zombie fencing", "Two instances, one transactional id, and the epoch bump.",
		zh("僵尸实例隔离", "两个实例共用一个 transactional.id，epoch 递增把旧实例挡在门外。")},
	{"exactly-once-pipeline", "Exactly-once pipeline", "Read-process-write with offsets inside the transaction.",
		zh("精确一次流水线", "消费-处理-生产，消费位移随事务一起提交。")},
	{"transaction-log", "The transaction log", "Every state change of a transactional id is a record in __transaction_state: a restarted coordinator replays them, an idle id expires as a tombstone, compaction keeps the latest.",
		zh("事务日志", "事务 id 的每一次状态变更都是 __transaction_state 中的一条记录：重启的协调者靠重放它们恢复状态，闲置的事务 id 过期后留下墓碑消息，日志压缩只保留最新的一条。")},
	{"consumer-groups", "Consumer groups", "Coordinator, join, sync, heartbeat, commit, and a rebalance.",
		zh("消费者组", "协调者、加入、同步、心跳、提交位移，以及一次再均衡。")},
	{"rebalance-triggers", "Rebalance triggers", "A member joins, leaves or dies, partitions are added, a subscription changes: each starts a rebalance.",
		zh("再均衡的触发条件", "成员加入、离开或宕机，分区增加，订阅变化：每一种都会触发再均衡。")},
	{"consumer-loss-and-duplicates", "Commit before or after processing", "Committing first loses records in a crash, committing after re-delivers them; a business key removes the duplicates.",
		zh("处理前提交还是处理后提交", "先提交则崩溃时丢消息，后提交则崩溃时重复消费；按业务主键去重。")},
	{"share-groups", "Share groups", "Kafka 4's queues: several members read one partition, records are locked, acknowledged, redelivered and archived.",
		zh("共享组", "Kafka 4 的队列：多个成员读同一个分区，记录被锁定、确认、重新投递和归档。")},
	{"assignors", "Assignors", "Range, roundrobin and sticky side by side.",
		zh("分区分配策略", "range、roundrobin 与 sticky 三种分配策略并排对比。")},
	{"replication", "Replication", "LEO, high watermark and acks under a leader crash.",
		zh("副本复制", "leader 崩溃时的 LEO、高水位与 acks。")},
	{"zookeeper-and-kraft", "From ZooKeeper to KRaft", "Broker and topic registration and controller election, once in ZooKeeper, now records in the metadata quorum's log.",
		zh("从 ZooKeeper 到 KRaft", "broker 与主题的注册、controller 选举：从 ZooKeeper 的节点变成元数据 quorum 日志中的记录。")},
	{"replica-placement", "Replica placement", "Partition i on broker i mod n, its replicas on the next brokers, and what Kafka adds.",
		zh("副本放置", "第 i 个分区放在 broker i mod n 上，其余副本依次放在后面的 broker 上；以及 Kafka 额外做了什么。")},
	{"min-insync-replicas", "min.insync.replicas", "acks=all refused with NOT_ENOUGH_REPLICAS when the ISR shrinks too far; acks=1 still written.",
		zh("最小同步副本数 min.insync.replicas", "ISR 收缩到下限以下时，acks=all 被 NOT_ENOUGH_REPLICAS 拒绝；acks=1 仍可写入。")},
	{"leader-election", "Leader election", "ISR, clean and unclean election, and what each loses.",
		zh("leader 选举", "ISR、干净选举与 unclean 选举，以及各自会丢失什么。")},
	{"network-partition", "Network partition", "A leader cut off keeps answering: what acks=1 and acks=all get.",
		zh("网络分区", "被隔离的 leader 仍在应答：acks=1 与 acks=all 各得到什么。")},
	{"controller-failover", "Controller failover", "A new controller moves no partition leader, and a cut-off follower rejoins the ISR.",
		zh("控制器故障转移", "新控制器不移动任何分区 leader，被隔开的 follower 追上后重新加入 ISR。")},
	{"reassignment", "Partition reassignment", "KIP-455: new replicas join the ISR before the old ones leave; a crash mid-move; a cancel.",
		zh("分区重分配", "KIP-455：新副本加入 ISR 后旧副本才离开；迁移中途宕机；取消迁移。")},
	{"controlled-shutdown-and-racks", "Controlled shutdown and racks", "stop hands leaderships over first, crash does not; replicas across racks (KIP-36), reads from the closest one (KIP-392).",
		zh("受控关闭与机架", "stop 先交出 leader，crash 不会；副本跨机架放置（KIP-36），从最近的副本读取（KIP-392）。")},
	{"disk-failure-in-a-cluster", "A disk fails under a leader", "A failed fsync: no false acknowledgement, the controller is told (KIP-858), another in-sync replica leads, the broker halts and comes back as a follower.",
		zh("leader 的磁盘故障", "一次失败的 fsync：不会谎报写入成功，控制器得到通知（KIP-858），另一个同步副本接任 leader，故障 broker 停机，重启后以 follower 身份回归。")},
	{"coordinator-failover", "Coordinator failover", "A transaction survives the death of its coordinator's broker.",
		zh("协调者故障转移", "事务协调者所在的 broker 宕机，事务依然完成。")},
}

// Step is one command of a lesson with its narration and expected output.
type Step struct {
	Narration    string // English, the language every script is written in
	Translations Translations
	Question     *Question // asked before the command runs; nil for most steps
	Command      string
	Output       string
	Line         int // line number of the command in the script
}

// Translations is narration in languages other than English, by language
// tag. A script writes them beside the English, one `#[TAG] text` line
// each (`#[zh] 生产者重试……`), so a translation sits next to the command it
// explains. A lesson that has a language has it on every step and in its
// trailer (TestNarration).
type Translations map[string]string

// Lesson is a parsed script.
type Lesson struct {
	Meta
	// Version names the script the lesson was parsed from (Version): a
	// saved link carries it, so that a link saved before the lesson
	// changed says so instead of replaying something else.
	Version string
	Seed    uint64
	Steps   []Step
	// Trailer is narration after the last command: the lesson's recap, one
	// paragraph per point.
	Trailer             string
	TrailerTranslations Translations
}

// NextAfter is the lesson that follows slug in Catalog order, or nil
// after the last one (and for a slug not in Catalog).
func NextAfter(slug string) *Meta {
	i := slices.IndexFunc(Catalog, func(m Meta) bool { return m.Slug == slug })
	if i < 0 || i+1 == len(Catalog) {
		return nil
	}
	return &Catalog[i+1]
}

// Load parses a lesson by slug, from its script (Script).
func Load(slug string) (*Lesson, error) {
	var meta *Meta
	for i := range Catalog {
		if Catalog[i].Slug == slug {
			meta = &Catalog[i]
		}
	}
	if meta == nil {
		return nil, fmt.Errorf("lessons: no lesson %q", slug)
	}
	raw, err := Script(slug)
	if err != nil {
		return nil, err
	}
	l, err := Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("lessons: %s: %w", slug, err)
	}
	l.Meta, l.Version = *meta, Version(raw)
	return l, nil
}

// Version is a script's version: 16 hex digits of its FNV-1a hash, the
// same in every build (the browser hashes the script it fetched).
func Version(script []byte) string {
	h := fnv.New64a()
	h.Write(script)
	return fmt.Sprintf("%016x", h.Sum64())
}

// Parse reads a script. `#!seed: N` sets the seed; other `#` lines are
// narration for the next command (`#[TAG]` lines in language TAG, see
// Translations); `----` opens the expected output, which a blank line
// closes.
func Parse(text string) (*Lesson, error) {
	l := &Lesson{Seed: 1}
	var narr narration
	var q *Question
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case strings.HasPrefix(line, "#!"):
			k, v, _ := strings.Cut(strings.TrimPrefix(line, "#!"), ":")
			if strings.TrimSpace(k) == "seed" {
				n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: bad seed %q", i+1, v)
				}
				l.Seed = n
			}
		case strings.HasPrefix(line, "#?"), strings.HasPrefix(line, "#="), strings.HasPrefix(line, "#-"):
			if err := addQuestionLine(&q, line); err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
		case strings.HasPrefix(line, "#"):
			narr.add(line)
		case line == "":
			narr.breakParagraph()
		case line == "----":
			return nil, fmt.Errorf("line %d: ---- without a command", i+1)
		default:
			st := Step{Command: line, Line: i + 1}
			st.Narration, st.Translations = narr.texts()
			st.Question, narr, q = q, nil, nil
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "----" {
				i += 2
				var out []string
				for ; i < len(lines) && strings.TrimRight(lines[i], " \r") != ""; i++ {
					out = append(out, strings.TrimRight(lines[i], "\r"))
				}
				st.Output = strings.Join(out, "\n")
			}
			l.Steps = append(l.Steps, st)
		}
	}
	if q != nil {
		return nil, fmt.Errorf("a question after the last command: it needs a step to reveal its answer")
	}
	l.Trailer, l.TrailerTranslations = narr.texts()
	return l, nil
}

// narration collects the `#` lines before a command, by language ("" is
// English).
type narration map[string][]string

func (n *narration) add(line string) {
	if *n == nil {
		*n = narration{}
	}
	text, lang := strings.TrimPrefix(line, "#"), ""
	if tag, rest, ok := strings.Cut(text, "]"); ok && strings.HasPrefix(tag, "[") && !strings.ContainsAny(tag, " \t") {
		lang, text = tag[1:], rest
	}
	(*n)[lang] = append((*n)[lang], strings.TrimSpace(text))
}

// breakParagraph ends the paragraph in every language.
func (n narration) breakParagraph() {
	for lang, ls := range n {
		if len(ls) > 0 && ls[len(ls)-1] != "" {
			n[lang] = append(ls, "")
		}
	}
}

func (n narration) texts() (string, Translations) {
	var tr Translations
	for lang, ls := range n {
		if lang == "" {
			continue
		}
		if tr == nil {
			tr = Translations{}
		}
		tr[lang] = strings.TrimSpace(strings.Join(ls, "\n"))
	}
	return strings.TrimSpace(strings.Join(n[""], "\n")), tr
}

// StartsCluster is the first step that starts a multi-broker world
// (sim.StartsCluster), which only a build with the quorum replays; ok
// false for a single-broker lesson.
func (l *Lesson) StartsCluster() (st Step, ok bool) {
	for _, st := range l.Steps {
		if sim.StartsCluster(strings.TrimSpace(st.Command)) {
			return st, true
		}
	}
	return Step{}, false
}

// Replay runs the first n steps (all when n < 0) in a fresh world and
// returns it with what each step printed.
func (l *Lesson) Replay(n int) (*sim.World, []string) {
	if n < 0 || n > len(l.Steps) {
		n = len(l.Steps)
	}
	w := sim.New(l.Seed)
	outs := make([]string, n)
	for i := range n {
		outs[i] = Exec(w, l.Steps[i].Command)
	}
	return w, outs
}

// Exec runs one command and renders an error as output, as a lesson shows it.
func Exec(w *sim.World, cmd string) string {
	return Output(w.Exec(cmd))
}

// Output is what a lesson shows for a command that printed out and failed
// with err (nil if it did not): the printed lines, then the error's.
func Output(out string, err error) string {
	out = strings.TrimRight(out, "\n")
	if err != nil {
		if out != "" {
			out += "\n"
		}
		out += "error: " + err.Error()
	}
	return out
}

// Format writes the lesson back as a script with the given outputs, the
// inverse of Parse; -rewrite uses it.
func (l *Lesson) Format(outputs []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "#!seed: %d\n", l.Seed)
	for i, st := range l.Steps {
		sb.WriteString("\n")
		writeNarration(&sb, st.Narration, st.Translations)
		writeQuestion(&sb, st.Question)
		sb.WriteString(st.Command + "\n----\n")
		if outputs[i] != "" {
			sb.WriteString(outputs[i] + "\n")
		}
	}
	if l.Trailer != "" || len(l.TrailerTranslations) > 0 {
		sb.WriteString("\n")
		writeNarration(&sb, l.Trailer, l.TrailerTranslations)
	}
	return sb.String()
}

func sortedKeys(tr Translations) []string { return slices.Sorted(maps.Keys(tr)) }

// writeNarration writes the English lines, then each translation's, in
// the order of their tags.
func writeNarration(sb *strings.Builder, english string, tr Translations) {
	write := func(prefix, text string) {
		if text == "" {
			return
		}
		for _, n := range strings.Split(text, "\n") {
			sb.WriteString(strings.TrimRight(prefix+" "+n, " ") + "\n")
		}
	}
	write("#", english)
	for _, lang := range sortedKeys(tr) {
		write("#["+lang+"]", tr[lang])
	}
}

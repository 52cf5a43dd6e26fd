package dev.idempotent.sample;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;

import dev.idempotent.audit.AuditResult;
import dev.idempotent.audit.Audits;
import dev.idempotent.autoconfigure.IdempotentProperties;
import dev.idempotent.key.KeyMasker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * The demo: publish the stream with re-sends, consume it, replay the whole topic from offset 0 as a lost offset
 * commit would, then print the reconciliation line:
 * {@code RECONCILIATION events=.. deliveries=.. hits=.. ledger_rows=.. double_credits=.. missing=.. events_out=..
 * events_out_missing=.. events_out_double=.. events_out_records=..}. Fails (non-zero exit) if any order was credited
 * twice or not at all, or its ledger-credited event is missing or was published under two idempotency keys.
 */
@Component
public class DemoRunner implements ApplicationRunner {

	/** The name of the declared ledger audit, see {@code application.yml}. */
	static final String LEDGER_AUDIT = "ledger";

	private static final Logger logger = LoggerFactory.getLogger(DemoRunner.class);

	private final LedgerProperties properties;

	private final DemoStream stream;

	private final PaymentListener listener;

	private final ConsumerProgress progress;

	private final Reconciliation reconciliation;

	private final CreditedEvents credited;

	private final Audits audits;

	private final KeyMasker masker;

	DemoRunner(LedgerProperties properties, DemoStream stream, PaymentListener listener, ConsumerProgress progress,
			Reconciliation reconciliation, CreditedEvents credited, Audits audits, IdempotentProperties idempotent) {
		this.properties = properties;
		this.stream = stream;
		this.listener = listener;
		this.progress = progress;
		this.reconciliation = reconciliation;
		this.credited = credited;
		this.audits = audits;
		this.masker = idempotent.keyMasker();
	}

	@Override
	public void run(ApplicationArguments args) throws Exception {
		if (this.properties.getEvents() <= 0) {
			return;
		}
		String runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMddHHmmss")) + "-"
				+ Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
		String topic = this.properties.getTopic();
		// counted before publishing: the listener starts consuming while the stream is still being published
		long before = this.progress.deliveries();
		DemoStream.Published published = this.stream.publish(topic, runId, this.properties.getEvents(),
				this.properties.getResendRatio());
		logger.info("Published {} order-paid events as {} records (re-sends included)", published.events(),
				published.records());
		this.progress.awaitCaughtUp(PaymentListener.ID, topic, before + published.records(),
				this.properties.getPhaseTimeout());
		logger.info("Consumed the stream; replaying the topic from offset 0, as after a lost offset commit");
		this.listener.seekToBeginning();
		this.progress.awaitCaughtUp(PaymentListener.ID, topic, before + 2L * published.records(),
				this.properties.getPhaseTimeout());
		report(runId, published, this.progress.deliveries() - before);
	}

	private void report(String runId, DemoStream.Published published, long deliveries) {
		long doubleCredits = this.reconciliation.doubleCredits(runId);
		long missing = this.reconciliation.missing(runId, published.events());
		CreditedEvents.Counts out = this.credited.count(this.properties.getCreditedTopic(), runId,
				this.properties.getPhaseTimeout());
		long outMissing = published.events() - out.orders();
		System.out.printf("RECONCILIATION events=%d deliveries=%d hits=%d ledger_rows=%d double_credits=%d missing=%d"
				+ " events_out=%d events_out_missing=%d events_out_double=%d events_out_records=%d%n",
				published.events(), deliveries, this.progress.hits(), this.reconciliation.ledgerRows(runId),
				doubleCredits, missing, out.orders(), outMissing, out.doubles(), out.records());
		AuditResult audit = this.audits.run(LEDGER_AUDIT);
		System.out.printf("AUDIT %s duplicates=%d sample=%s took=%dms%n", audit.name(), audit.duplicatedKeys(),
				audit.sampleKeys().stream().map(this.masker::mask).toList(), audit.took().toMillis());
		if (doubleCredits != 0 || missing != 0 || outMissing != 0 || out.doubles() != 0) {
			throw new IllegalStateException("Reconciliation failed: double_credits=" + doubleCredits + " missing="
					+ missing + " events_out_missing=" + outMissing + " events_out_double=" + out.doubles());
		}
	}

}

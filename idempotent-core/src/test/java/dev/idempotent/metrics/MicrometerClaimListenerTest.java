package dev.idempotent.metrics;

import java.time.Duration;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The claim meters, and the origin of hits: a redelivery of the same record or a re-send of its key. */
class MicrometerClaimListenerTest {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerClaimListener listener = new MicrometerClaimListener(this.registry);

	@Test
	void countsHitsByOutcomeAndByOrigin() {
		DeliverySource offset7 = new DeliverySource("orders", 0, 7);
		hit(offset7, offset7);
		hit(offset7, offset7);
		hit(new DeliverySource("orders", 1, 3), offset7);
		hit(null, offset7);
		this.listener.onClaimed(new ClaimRequest("ledger", "k", offset7), false, Duration.ofMillis(2));

		assertThat(count(MicrometerClaimListener.CLAIMS, "outcome", MicrometerClaimListener.HIT)).isEqualTo(4);
		assertThat(count(MicrometerClaimListener.CLAIMS, "outcome", MicrometerClaimListener.CLAIMED)).isEqualTo(1);
		assertThat(count(MicrometerClaimListener.HITS, "origin", MicrometerClaimListener.REDELIVERY)).isEqualTo(2);
		assertThat(count(MicrometerClaimListener.HITS, "origin", MicrometerClaimListener.RESEND)).isEqualTo(1);
		assertThat(count(MicrometerClaimListener.HITS, "origin", MicrometerClaimListener.UNKNOWN)).isEqualTo(1);
	}

	@Test
	void tellsHitsTheFastPathAnsweredFromTheDatabasesAndCountsBothAsHits() {
		DeliverySource offset7 = new DeliverySource("orders", 0, 7);
		hit(offset7, offset7);
		this.listener.onFastPathHit(new ClaimRequest("ledger", "k", offset7),
				new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null, null, offset7), Duration.ofMillis(1));
		this.listener.onFastPathHit(new ClaimRequest("ledger", "j", offset7),
				new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null, null, offset7), Duration.ofMillis(1));

		assertThat(count(MicrometerClaimListener.CLAIMS, "outcome", MicrometerClaimListener.HIT)).isEqualTo(3);
		assertThat(count(MicrometerClaimListener.HITS, "found_in", MicrometerClaimListener.DATABASE)).isEqualTo(1);
		assertThat(count(MicrometerClaimListener.HITS, "found_in", MicrometerClaimListener.FAST_PATH)).isEqualTo(2);
	}

	@Test
	void countsTheFastPathsLookupsAndRememberedKeys() {
		MicrometerFastPathListener fastPath = new MicrometerFastPathListener(this.registry);
		fastPath.onLookup("ledger", 3, 2, 0, Duration.ofMillis(1));
		fastPath.onLookup("ledger", 0, 0, 5, Duration.ofMillis(100));
		fastPath.onBypassed("ledger", 4);
		fastPath.onRemember(2, null);
		fastPath.onRemember(1, new IllegalStateException("down"));

		assertThat(count(MicrometerFastPathListener.LOOKUPS, "result", MicrometerFastPathListener.KNOWN)).isEqualTo(3);
		assertThat(count(MicrometerFastPathListener.LOOKUPS, "result", MicrometerFastPathListener.UNKNOWN)).isEqualTo(2);
		assertThat(count(MicrometerFastPathListener.LOOKUPS, "result", MicrometerFastPathListener.ERROR)).isEqualTo(5);
		assertThat(count(MicrometerFastPathListener.LOOKUPS, "result", MicrometerFastPathListener.BYPASSED)).isEqualTo(4);
		assertThat(this.registry.get(MicrometerFastPathListener.LOOKUP_DURATION).timer().count()).isEqualTo(2);
		assertThat(this.registry.get(MicrometerFastPathListener.REMEMBERED).tag("result", "stored").counter().count())
			.isEqualTo(2);
	}

	private void hit(DeliverySource current, DeliverySource stored) {
		this.listener.onHit(new ClaimRequest("ledger", "k", current),
				new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null, null, stored), Duration.ofMillis(1));
	}

	private double count(String name, String tag, String value) {
		return this.registry.get(name).tag("scope", "ledger").tag(tag, value).counter().count();
	}

}

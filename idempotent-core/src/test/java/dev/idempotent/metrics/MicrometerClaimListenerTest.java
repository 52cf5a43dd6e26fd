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

	private void hit(DeliverySource current, DeliverySource stored) {
		this.listener.onHit(new ClaimRequest("ledger", "k", current),
				new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null, null, stored), Duration.ofMillis(1));
	}

	private double count(String name, String tag, String value) {
		return this.registry.get(name).tag("scope", "ledger").tag(tag, value).counter().count();
	}

}

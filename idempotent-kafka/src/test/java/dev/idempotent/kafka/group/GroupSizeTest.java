package dev.idempotent.kafka.group;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class GroupSizeTest {

	private static final long SLOW = Duration.ofSeconds(2).toNanos();

	private static final long QUICK = Duration.ofMillis(10).toNanos();

	@Test
	void startsAtMaxRecords() {
		assertThat(new GroupSize(500, Duration.ofSeconds(1)).next()).isEqualTo(500);
	}

	@Test
	void aSlowGroupHalvesTheNextDownToOneRecordAndQuickFullGroupsDoubleItBack() {
		GroupSize sizes = new GroupSize(8, Duration.ofSeconds(1));
		sizes.took(8, SLOW);
		assertThat(sizes.next()).isEqualTo(4);
		sizes.took(4, SLOW);
		sizes.took(2, SLOW);
		sizes.took(1, SLOW);
		assertThat(sizes.next()).isOne();
		sizes.took(1, QUICK);
		assertThat(sizes.next()).isEqualTo(2);
		sizes.took(2, QUICK);
		sizes.took(4, QUICK);
		sizes.took(8, QUICK);
		assertThat(sizes.next()).isEqualTo(8);
	}

	@Test
	void aQuickGroupSmallerThanTheSizeLeavesItAsItIs() {
		GroupSize sizes = new GroupSize(8, Duration.ofSeconds(1));
		sizes.took(8, SLOW);
		sizes.took(1, QUICK);
		assertThat(sizes.next()).as("the poll had only one record left").isEqualTo(4);
	}

	@Test
	void aSlowSmallGroupHalvesFromItsOwnSize() {
		GroupSize sizes = new GroupSize(500, Duration.ofSeconds(1));
		sizes.took(10, SLOW);
		assertThat(sizes.next()).isEqualTo(5);
	}

	@Test
	void refusesBoundsOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> new GroupSize(0, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> new GroupSize(1, Duration.ZERO));
	}

}

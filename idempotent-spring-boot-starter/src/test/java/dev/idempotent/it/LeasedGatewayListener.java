package dev.idempotent.it;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * A LEASED listener that calls a remote gateway ({@link RemoteCalls}) with the idempotency key. Records whose
 * value is {@code fail-once} fail on their first call; {@code crash.in-lease-of} stops the consumer thread after
 * the remote call, while it holds the lease, until the test kills the process.
 */
public class LeasedGatewayListener {

	private final RemoteCalls remote;

	private final String group;

	private final String inLeaseOf;

	private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

	public LeasedGatewayListener(RemoteCalls remote, String group, String inLeaseOf) {
		this.remote = remote;
		this.group = group;
		this.inLeaseOf = inLeaseOf;
	}

	@KafkaListener(id = "leased-gateway", topics = "${it.topic}", groupId = "${it.group}")
	@IdempotentListener(mode = ClaimMode.LEASED, lease = "${it.lease:3s}")
	public void charge(ConsumerRecord<String, String> record) {
		String key = IdempotencyContext.currentKey();
		this.remote.call(this.group, key);
		if ("fail-once".equals(record.value()) && this.failedOnce.add(key)) {
			throw new IllegalStateException("gateway timeout for " + key);
		}
		if (key.equals(this.inLeaseOf)) {
			System.out.println("CRASH-POINT in-lease " + key);
			System.out.flush();
			while (true) {
				LockSupport.park();
			}
		}
	}

}

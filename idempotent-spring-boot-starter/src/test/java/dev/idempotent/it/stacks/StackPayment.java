package dev.idempotent.it.stacks;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A payment as a JPA entity on {@link StackPayments}' table. Its id is generated in the JVM, so Hibernate
 * inserts it at flush, i.e. at commit: a unique violation of its reference surfaces only there.
 */
@Entity
@Table(name = "stack_payment")
public class StackPayment {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private String id;

	@Column(name = "grp", nullable = false)
	private String group;

	@Column(name = "idem_key", nullable = false)
	private String key;

	@Column(name = "reference", nullable = false)
	private String reference;

	protected StackPayment() {
	}

	public StackPayment(String group, String key, String reference) {
		this.group = group;
		this.key = key;
		this.reference = reference;
	}

	public String getId() {
		return this.id;
	}

	public String getReference() {
		return this.reference;
	}

}

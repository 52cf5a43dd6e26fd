package dev.idempotent.it.stacks;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data JPA repository of {@link StackPayment}. */
public interface StackPaymentRepository extends JpaRepository<StackPayment, String> {

}

Network n {
}

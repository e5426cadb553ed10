Network 01_P1 {
Layer L01 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
SpatialMap(2,2) K;
TemporalMap(1,1) S;
TemporalMap(64,64) C;
TemporalMap(4,4) X';
TemporalMap(1,1) R;
TemporalMap(41,41) Y';
Cluster(5,P);
TemporalMap(1,1) X';
SpatialMap(1,1) C;
TemporalMap(1,1) S;
TemporalMap(2,2) K;
TemporalMap(18,18) Y';
TemporalMap(1,1) R;
}
}
}
